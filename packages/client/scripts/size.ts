/**
 * The size report: the package's entry bundled for a neutral platform (dependencies included,
 * minified), gzipped. Target: ≤ 15 kB. Printed by the build and by `npm run bench -w @tally/client`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const SIZE_TARGET_BYTES = 15 * 1024;

export async function bundleCore(): Promise<{ code: string; gzipBytes: number }> {
  const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
  const out = await build({
    entryPoints: [join(pkg, 'src', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const code = out.outputFiles[0]!.text;
  return { code, gzipBytes: gzipSync(code, { level: 9 }).length };
}

export async function reportSize(): Promise<number> {
  const { code, gzipBytes } = await bundleCore();
  const kB = (n: number) => (n / 1024).toFixed(1);
  const verdict = gzipBytes <= SIZE_TARGET_BYTES ? 'within' : 'OVER';
  console.log(`@tally/client core bundle: ${kB(gzipBytes)} kB gzipped (${kB(code.length)} kB minified); target ≤ ${kB(SIZE_TARGET_BYTES)} kB: ${verdict}`);
  return gzipBytes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await reportSize();
