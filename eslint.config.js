import js from '@eslint/js';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import tally from './packages/server/eslint/module-boundaries.js';

/**
 * Which modules each server module may import (through their faces, modules/<name>/index.ts).
 * One direction only — the rule refuses a table with a cycle. An effect against the direction goes
 * through platform/hooks.ts (ADR 0004). Keep packages/server/src/modules/README.md in step.
 */
export const MODULE_DEPENDENCIES = {
  accounts: ['settings'],
  health: [],
  catalog: [],
  customers: [],
  billing: ['catalog', 'customers', 'settings'],
  credits: ['catalog', 'customers', 'billing'],
  usage: ['catalog', 'customers', 'billing', 'credits'],
  settings: ['catalog'],
  agents: ['accounts', 'settings', 'catalog', 'customers', 'billing', 'credits', 'usage', 'payments'],
  payments: ['accounts', 'settings', 'catalog', 'customers', 'billing', 'credits', 'usage'],
  mcp: ['catalog', 'customers', 'billing', 'credits', 'usage', 'payments'],
  spend: ['catalog', 'credits', 'usage'],
  portal: ['accounts', 'customers', 'payments'],
  webhooks: [],
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'packages/client/src/generated/**', '**/.test-bundle/**'] },
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
  {
    // Module faces and the dependency direction (packages/server/eslint/module-boundaries.js).
    files: ['packages/server/src/**/*.ts', 'packages/server/bench/**/*.ts'],
    plugins: { tally },
    rules: {
      'tally/module-boundaries': [
        'error',
        { srcDir: fileURLToPath(new URL('./packages/server/src', import.meta.url)), dependencies: MODULE_DEPENDENCIES },
      ],
    },
  },
  {
    // The Stripe SDK lives behind one adapter (packages/server/src/modules/payments/README.md).
    files: ['packages/server/src/**/*.ts'],
    ignores: ['packages/server/src/modules/payments/processor/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'stripe', message: 'Use the adapter in modules/payments/processor/.' }] }],
    },
  },
);
