import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Amounts never pass through binary floating point (ADR 0002).
      'no-restricted-globals': ['error', { name: 'parseFloat', message: 'Use Decimal (platform/money.ts).' }],
      'no-restricted-properties': ['error', { object: 'Number', property: 'parseFloat', message: 'Use Decimal.' }],
    },
  },
);
