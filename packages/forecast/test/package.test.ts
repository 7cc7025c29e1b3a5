/**
 * Package-level guarantees: the public surface, and static checks that the
 * source stays pure (no Node built-ins, clock, randomness, I/O or floats on
 * amounts) so it runs unchanged in browsers.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as api from '../src/index.js';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const srcDir = join(packageDir, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [full] : [];
  });
}

test('exports exactly the four upstream names', () => {
  assert.deepEqual(Object.keys(api).sort(), [
    'ForecastValidationError',
    'PlanValidationError',
    'forecastCreditUsage',
    'planCreditUsage',
  ]);
});

test('source is free of I/O, clock, randomness and float conversions', () => {
  const forbidden: [RegExp, string][] = [
    [/from\s+['"]node:/, 'node: import'],
    [/\brequire\(/, 'require'],
    [/\bimport\(/, 'dynamic import'],
    [/\bprocess\./, 'process'],
    [/\bfetch\(/, 'fetch'],
    [/Date\.now|new Date\b|performance\.now/, 'clock'],
    [/Math\.random|crypto\./, 'randomness'],
    [/parseFloat|parseInt|toFixed|toPrecision|\bNumber\(/, 'float conversion'],
    [/localStorage|XMLHttpRequest|WebSocket/, 'browser I/O'],
  ];
  const files = sourceFiles(srcDir);
  assert.ok(files.length >= 8);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [pattern, what] of forbidden) assert.doesNotMatch(text, pattern, `${what} in ${file}`);
    assert.ok(text.split('\n').length <= 260, `${file} should stay small`);
  }
});

test('no runtime dependencies', () => {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(manifest['dependencies'], undefined);
  assert.equal(manifest['type'], 'module');
  assert.equal(manifest['name'], '@tally/forecast');
});
