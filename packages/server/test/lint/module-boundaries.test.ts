import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

/**
 * The module-boundaries rule (packages/server/eslint/module-boundaries.js) as `npm run lint` runs it:
 * the repository's own eslint.config.js, applied to snippets placed at paths under src/ (or bench/).
 */
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const srcDir = path.join(repoRoot, 'packages/server/src');
const benchDir = path.join(repoRoot, 'packages/server/bench');
const eslint = new ESLint({ cwd: repoRoot });

async function problems(file: string, code: string, linter = eslint, dir = srcDir) {
  const [result] = await linter.lintText(code, { filePath: path.join(dir, file) });
  return result!.messages.filter((m) => m.ruleId === 'tally/module-boundaries').map((m) => m.message);
}

describe('module-boundaries lint rule', () => {
  test('when a module imports a face it may depend on, then nothing is reported', async () => {
    assert.deepEqual(await problems('modules/usage/x.ts', "import { quoteCredits } from '../credits/index.js';\nvoid quoteCredits;\n"), []);
    assert.deepEqual(await problems('modules/credits/x.ts', "import * as repo from './repo.js';\nimport { x } from './tariff/service.js';\nvoid repo; void x;\n"), []);
  });

  test('when a module imports past another module\'s face, then it is refused', async () => {
    const found = await problems('modules/usage/x.ts', "import { listPools } from '../credits/repo.js';\nvoid listPools;\n");
    assert.equal(found.length, 1);
    assert.match(found[0]!, /Import module 'credits' through its face \('\.\.\/credits\/index\.js'\)/);
  });

  test('when a module re-exports or dynamically imports internals of another, then it is refused', async () => {
    assert.equal((await problems('modules/usage/x.ts', "export * from '../credits/draw.js';\n")).length, 1);
    assert.equal((await problems('modules/usage/x.ts', "export async function f() { return import('../catalog/repo.js'); }\n")).length, 1);
    assert.equal((await problems('modules/usage/x.ts', "import type { PlanRow } from '../catalog/repo.js';\nexport type P = PlanRow;\n")).length, 1);
    assert.equal((await problems('modules/usage/x.ts', "export type P = import('../catalog/repo.js').PlanRow;\n")).length, 1);
  });

  test('when a module imports a module against the table\'s direction, then it is refused even through the face', async () => {
    const billingToCredits = await problems('modules/billing/x.ts', "import { jobs } from '../credits/index.js';\nvoid jobs;\n");
    assert.equal(billingToCredits.length, 1);
    assert.match(billingToCredits[0]!, /Module 'billing' may not depend on module 'credits' \(its allowed dependencies: catalog, customers, settings\)/);
    const catalogToCredits = await problems('modules/catalog/x.ts', "import { listPools } from '../credits/index.js';\nvoid listPools;\n");
    assert.match(catalogToCredits[0]!, /Module 'catalog' may not depend on module 'credits' \(its allowed dependencies: none\)/);
  });

  test('when app.ts or a script imports module internals, then it is refused; faces are fine', async () => {
    assert.equal((await problems('app.ts', "import { billingJobs } from './modules/billing/cycle.js';\nvoid billingJobs;\n")).length, 1);
    assert.equal((await problems('scripts/x.ts', "import { createAccount } from '../modules/accounts/service.js';\nvoid createAccount;\n")).length, 1);
    assert.deepEqual(await problems('runtime.ts', "import * as billing from './modules/billing/index.js';\nvoid billing;\n"), []);
  });

  test('when a bench file imports module internals, then it is refused; faces and platform are fine', async () => {
    const found = await problems('scenarios/x.ts', "import { createAccount } from '../../src/modules/accounts/service.js';\nvoid createAccount;\n", eslint, benchDir);
    assert.equal(found.length, 1);
    assert.match(found[0]!, /Import module 'accounts' through its face \('\.\.\/\.\.\/src\/modules\/accounts\/index\.js'\)/);
    const faces = "import { createAccount } from '../src/modules/accounts/index.js';\nimport { dec } from '../src/platform/money.js';\nvoid createAccount; void dec;\n";
    assert.deepEqual(await problems('x.ts', faces, eslint, benchDir), []);
  });

  test('when platform imports a module, even its face, then it is refused', async () => {
    const found = await problems('platform/x.ts', "import { resolveApiKey } from '../modules/accounts/index.js';\nvoid resolveApiKey;\n");
    assert.match(found[0]!, /platform\/ imports no module/);
  });

  test('when a module is missing from the table, then it is refused', async () => {
    const found = await problems('modules/wallets/x.ts', "export const x = 1;\n");
    assert.match(found[0]!, /Module 'wallets' is not in the dependency table/);
  });

  test('when a test file reaches into another module, then it is allowed', async () => {
    assert.deepEqual(await problems('modules/usage/x.test.ts', "import { listPools } from '../credits/repo.js';\nvoid listPools;\n"), []);
  });

  test('when the dependency table has a cycle, then every module file reports it', async () => {
    const cyclic = new ESLint({
      cwd: repoRoot,
      overrideConfig: {
        files: ['packages/server/src/**/*.ts'],
        rules: { 'tally/module-boundaries': ['error', { srcDir, dependencies: { catalog: ['credits'], credits: ['billing'], billing: ['catalog'] } }] },
      },
    });
    const found = await problems('modules/catalog/x.ts', "export const x = 1;\n", cyclic);
    assert.match(found[0]!, /The module dependency table has a cycle: catalog → credits → billing → catalog/);
  });
});
