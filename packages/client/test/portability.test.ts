import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { bundleCore, SIZE_TARGET_BYTES } from '../scripts/size.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'index.ts');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

test('when the client is bundled for a neutral platform then it imports no Node built-in', async () => {
  const seen: string[] = [];
  const watch: Plugin = {
    name: 'builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.path.startsWith('node:') || builtins.has(args.path) || builtins.has(args.path.split('/')[0]!)) {
          seen.push(`${args.path} (from ${args.importer})`);
          return { path: args.path, external: true };
        }
        return undefined;
      });
    },
  };
  const out = await build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'neutral', write: false, metafile: true, logLevel: 'silent', plugins: [watch] });
  assert.deepEqual(seen, [], `Node built-ins imported: ${seen.join(', ')}`);
  const inputs = Object.keys(out.metafile.inputs);
  assert.ok(inputs.some((i) => i.includes('openapi-fetch')), 'the generated core (openapi-fetch) is in the bundle');
  const externals = Object.values(out.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
  assert.deepEqual(externals, []);
});

test('when the core is bundled and gzipped then it stays within the size target', async () => {
  const { gzipBytes } = await bundleCore();
  assert.ok(gzipBytes <= SIZE_TARGET_BYTES, `${gzipBytes} B gzipped > ${SIZE_TARGET_BYTES} B`);
});
