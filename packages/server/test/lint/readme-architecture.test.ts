import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The root README's "Architecture on one screen" cannot rot: it names every server module, and its
 * dependency table is `MODULE_DEPENDENCIES` of eslint.config.js (what the lint enforces) row for row.
 */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

test('the README architecture lists every module and the dependency table of eslint.config.js', async () => {
  const { MODULE_DEPENDENCIES } = (await import(path.join(repoRoot, 'eslint.config.js'))) as { MODULE_DEPENDENCIES: Record<string, string[]> };
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Architecture on one screen'), readme.indexOf('\n## ', readme.indexOf('## Architecture on one screen') + 1));
  const modules = readdirSync(path.join(repoRoot, 'packages/server/src/modules'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  assert.deepEqual(Object.keys(MODULE_DEPENDENCIES).sort(), modules);
  const rows = new Map(
    [...section.matchAll(/^\| ([a-z]+) \| ([^|]+) \|$/gm)].map(([, name, deps]) => [name!, deps!.trim() === '—' ? [] : deps!.split(',').map((d) => d.trim()).sort()]),
  );
  assert.deepEqual(Object.fromEntries([...rows].sort()), Object.fromEntries(Object.entries(MODULE_DEPENDENCIES).map(([m, d]) => [m, [...d].sort()]).sort()));
  for (const name of modules) assert.match(section, new RegExp(`^ {6}${name} `, 'm'), `the module tree names ${name}`);
  for (const part of ['apps/', 'console/', 'forecast/', 'client/', 'src/platform/']) assert.ok(section.includes(part), `names ${part}`);
});
