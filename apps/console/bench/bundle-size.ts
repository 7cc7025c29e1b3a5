/**
 * The JavaScript a first visit downloads, gzipped (level 9), from the build's manifest: the entry
 * chunk and its static imports (the login page), then the overview's lazy chunk and its static
 * imports (what the first page after sign-in adds). CSS is reported beside it, outside the target.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

type Chunk = { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; css?: string[] };

export const FIRST_PAGE_JS_TARGET_BYTES = 250 * 1024;

export type BundleReport = { entryJs: number; overviewJs: number; firstPageJs: number; css: number; files: string[] };

export function measureFirstPage(distDir: string): BundleReport {
  const manifest = JSON.parse(readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const gz = (file: string) => gzipSync(readFileSync(join(distDir, file)), { level: 9 }).length;
  /** The chunk `key` and every chunk it imports statically, transitively. */
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const k of manifest[key]?.imports ?? []) closure(k, seen);
    return seen;
  };
  const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  const overviewKey = Object.keys(manifest).find((k) => k.endsWith('src/pages/overview.tsx'));
  if (!entryKey || !overviewKey) throw new Error('no entry or overview chunk in the manifest: build the console first');
  const entry = closure(entryKey);
  const overview = [...closure(overviewKey)].filter((k) => !entry.has(k));
  const sum = (keys: Iterable<string>) => [...keys].reduce((n, k) => n + gz(manifest[k]!.file), 0);
  const cssFiles = new Set([...entry, ...overview].flatMap((k) => manifest[k]!.css ?? []));
  return {
    entryJs: sum(entry),
    overviewJs: sum(overview),
    firstPageJs: sum(entry) + sum(overview),
    css: [...cssFiles].reduce((n, f) => n + gz(f), 0),
    files: [...entry, ...overview].map((k) => manifest[k]!.file),
  };
}
