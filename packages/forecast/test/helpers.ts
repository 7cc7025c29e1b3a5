/**
 * Shared test helpers: fixture discovery, the recursive subset rule of
 * METHODOLOGY 12.2, and a seeded PRNG for generated inputs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Golden fixtures live in the shared reference tree; FORECAST_FIXTURES_DIR overrides. */
export function fixturesRoot(): string {
  const override = process.env['FORECAST_FIXTURES_DIR'];
  if (override !== undefined && override !== '') return resolve(override);
  return VENDORED_FIXTURES;
}

/**
 * The golden fixtures are vendored from shared/reference/forecast so that a clean clone (CI) has
 * them; `fixtures.test.ts` checks the copy against the shared folder whenever that folder exists.
 */
export const VENDORED_FIXTURES = fileURLToPath(new URL('./golden/', import.meta.url));
export const SHARED_FIXTURES = fileURLToPath(new URL('../../../../shared/reference/forecast/', import.meta.url));

export type FixtureKind = 'forecast' | 'plan';

export interface Fixture {
  readonly file: string;
  readonly kind: FixtureKind;
  readonly name: string;
  readonly input: unknown;
  readonly expected?: unknown;
  readonly expectedError?: unknown;
  readonly execution?: { repeatCount?: number };
  readonly schemaVersion?: string;
  readonly methodologyVersion?: string;
}

function jsonFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...jsonFilesUnder(full));
    else if (entry.endsWith('.json')) files.push(full);
  }
  return files;
}

/** Which function a fixture exercises: by its folder, falling back to the input's shape. */
function kindOf(relativePath: string, input: unknown): FixtureKind {
  const folders = relativePath.split(sep).slice(0, -1);
  if (folders.some((folder) => folder.includes('plan'))) return 'plan';
  if (folders.some((folder) => folder.includes('scenario') || folder.includes('forecast'))) return 'forecast';
  return typeof input === 'object' && input !== null && 'metricEstimates' in input ? 'plan' : 'forecast';
}

/** Every golden fixture file below the root, recursively, in a stable order. */
export function loadFixtures(root = fixturesRoot()): Fixture[] {
  return jsonFilesUnder(root).map((file) => {
    const rel = relative(root, file);
    const data = JSON.parse(readFileSync(file, 'utf8')) as Omit<Fixture, 'file' | 'kind'>;
    return { ...data, file: rel, kind: kindOf(rel, data.input) };
  });
}

/**
 * Recursive subset rule: arrays are compared as prefixes, objects by the
 * expected keys only, scalars strictly. Returns the first mismatch path, or null.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path = '$'): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array`;
    if (actual.length < expected.length) return `${path}: expected at least ${expected.length} items, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const found = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return `${path}: expected an object`;
    for (const [key, value] of Object.entries(expected)) {
      const found = subsetMismatch(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** mulberry32: tiny, seeded and reproducible; the tests must not use Math.random. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
