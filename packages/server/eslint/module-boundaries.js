// @ts-check
/**
 * ESLint rule `tally/module-boundaries`: keeps the server's modules honest.
 *
 * - An import from outside module B (another module, app.ts, runtime.ts, scripts, bench/) may name
 *   only B's face, `modules/B/index.ts`; everything else in B is private to B. Which files the rule
 *   sees is eslint.config.js's choice (src/ and bench/); a file outside src/ belongs to no module.
 * - A module may import only the modules its row of the dependency table allows. The table is
 *   checked to be acyclic, so no cycle between modules can be written down or coded.
 * - platform/ imports no module at all.
 * - A module directory missing from the table is an error, so a new module must declare its place.
 * Tests (`*.test.ts`) are exempt: they may reach into any module's internals.
 *
 * Options: `{ srcDir: '<absolute path of packages/server/src>', dependencies: { module: [modules it may import] } }`.
 * A small local rule rather than eslint-plugin-boundaries: the policy is three checks over relative
 * specifiers, a table is the whole configuration, and it adds no dependency.
 */
import path from 'node:path';

/** The first cycle in the table as a list of modules (a → … → a), or null. */
export function findCycle(/** @type {Record<string, string[]>} */ table) {
  /** @type {Map<string, 'visiting' | 'done'>} */
  const state = new Map();
  /** @type {string[]} */
  const stack = [];
  /** @returns {string[] | null} */
  const visit = (/** @type {string} */ name) => {
    if (state.get(name) === 'done') return null;
    if (state.get(name) === 'visiting') return [...stack.slice(stack.indexOf(name)), name];
    state.set(name, 'visiting');
    stack.push(name);
    for (const next of table[name] ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(name, 'done');
    return null;
  };
  for (const name of Object.keys(table)) {
    const cycle = visit(name);
    if (cycle) return cycle;
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Modules are used only through their face (index.ts) and only in the direction of the dependency table' },
    schema: [
      {
        type: 'object',
        properties: {
          srcDir: { type: 'string' },
          dependencies: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
        required: ['srcDir', 'dependencies'],
        additionalProperties: false,
      },
    ],
    messages: {
      pastFace: "Import module '{{target}}' through its face ('{{face}}'), not '{{specifier}}': everything else in modules/{{target}} is private.",
      notAllowed: "Module '{{source}}' may not depend on module '{{target}}' (its allowed dependencies: {{allowed}}). Change the direction, use a hook (platform/hooks.ts), or change the table in eslint.config.js if the dependency is intended.",
      platform: "platform/ imports no module ('{{specifier}}'): pass what it needs in from app.ts or runtime.ts.",
      undeclared: "Module '{{module}}' is not in the dependency table (eslint.config.js, tally/module-boundaries).",
      cycle: 'The module dependency table has a cycle: {{cycle}}.',
    },
  },
  create(context) {
    const { srcDir, dependencies } = /** @type {{ srcDir: string; dependencies: Record<string, string[]> }} */ (context.options[0]);
    const filename = context.filename;
    if (/\.test\.[cm]?[jt]s$/.test(filename)) return {};
    const modulesDir = path.join(srcDir, 'modules');

    /** The module a path lies in (its first directory under modules/), or null. */
    const moduleOf = (/** @type {string} */ file) => {
      const rel = path.relative(modulesDir, file);
      if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
      const [first, ...rest] = rel.split(path.sep);
      return rest.length > 0 ? first ?? null : null;
    };
    const source = moduleOf(filename);
    const inPlatform = !path.relative(path.join(srcDir, 'platform'), filename).startsWith('..');

    /** @param {import('estree').Node} node @param {unknown} value */
    const check = (node, value) => {
      if (typeof value !== 'string' || !value.startsWith('.')) return;
      const resolved = path.resolve(path.dirname(filename), value);
      const target = moduleOf(resolved);
      if (!target || target === source) return;
      if (inPlatform) return context.report({ node, messageId: 'platform', data: { specifier: value } });
      if (!(target in dependencies)) return context.report({ node, messageId: 'undeclared', data: { module: target } });
      const withoutExtension = resolved.replace(/\.[cm]?[jt]s$/, '');
      if (withoutExtension !== path.join(modulesDir, target, 'index')) {
        const face = path.relative(path.dirname(filename), path.join(modulesDir, target, 'index.js'));
        context.report({ node, messageId: 'pastFace', data: { target, specifier: value, face: face.startsWith('.') ? face : `./${face}` } });
      }
      if (source) {
        const allowed = dependencies[source] ?? [];
        if (!allowed.includes(target)) {
          context.report({ node, messageId: 'notAllowed', data: { source, target, allowed: allowed.length ? allowed.join(', ') : 'none' } });
        }
      }
    };

    return {
      Program(node) {
        const cycle = findCycle(dependencies);
        if (cycle) context.report({ node, messageId: 'cycle', data: { cycle: cycle.join(' → ') } });
        if (source && !(source in dependencies)) context.report({ node, messageId: 'undeclared', data: { module: source } });
      },
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      // `type T = import('../credits/repo.js').PoolRow` (typescript-eslint's TSImportType).
      /** @param {any} node */
      TSImportType: (node) => {
        const literal = node.argument?.type === 'TSLiteralType' ? node.argument.literal : null;
        if (literal) check(literal, literal.value);
      },
    };
  },
};

export default { rules: { 'module-boundaries': moduleBoundaries } };
