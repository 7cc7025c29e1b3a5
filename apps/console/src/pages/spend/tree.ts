/** The spend-unit tree, as the allocation report and the units editor list it. */

/** Depth-first order of a unit tree: each unit followed by its children (an orphan's parent missing → top level). */
export function treeOrder<T extends { parentId: string | null }>(rows: T[], idOf: (row: T) => string): { row: T; depth: number }[] {
  const ids = new Set(rows.map(idOf));
  const children = new Map<string | null, T[]>();
  for (const r of rows) {
    const parent = r.parentId && ids.has(r.parentId) ? r.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  const out: { row: T; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const r of children.get(parent) ?? []) {
      out.push({ row: r, depth });
      walk(idOf(r), depth + 1);
    }
  };
  walk(null, 0);
  return out;
}
