import type { Schemas } from '../../api';
import { EmptyState, PageHeader, QueryView } from '../../components/ui';
import { useAllocation } from '../../queries/spend';
import { dollars } from './common';

type Row = Schemas['SpendAllocation']['rows'][number];

/** Units in their tree (children under their parent), each with own and total spend, then the Unattributed row. */
export default function AllocationPage() {
  const report = useAllocation();
  return (
    <section>
      <PageHeader title="Allocation" />
      <QueryView query={report} what="the allocation">
        {(r) => (
          <>
            <p className="muted">
              {r.from} → {r.to} · metered total {dollars(r.totalMeteredCents)}
            </p>
            {r.rows.length === 0 ? <EmptyState>No spend unit yet: every dollar is unattributed.</EmptyState> : null}
            <table aria-label="Allocation">
              <thead>
                <tr>
                  <th>Unit</th>
                  <th>Type</th>
                  <th className="num">Own</th>
                  <th className="num">Total (with children)</th>
                  {r.personLevelEnabled ? <th className="num">Person estimate</th> : null}
                </tr>
              </thead>
              <tbody>
                {ordered(r.rows).map(({ row, depth }) => (
                  <tr key={row.unitId}>
                    <td style={{ paddingLeft: `${0.75 + depth * 1.25}rem` }}>{row.name}</td>
                    <td>{row.type}</td>
                    <td className="num">{dollars(row.ownCents)}</td>
                    <td className="num">{dollars(row.totalCents)}</td>
                    {r.personLevelEnabled ? <td className="num">{dollars(row.personEstimateCents)}</td> : null}
                  </tr>
                ))}
                <tr className="unattributed">
                  <td>
                    <strong>Unattributed</strong>
                  </td>
                  <td>—</td>
                  <td className="num">{dollars(r.unattributedCents)}</td>
                  <td className="num">{dollars(r.unattributedCents)}</td>
                  {r.personLevelEnabled ? <td /> : null}
                </tr>
              </tbody>
            </table>
          </>
        )}
      </QueryView>
    </section>
  );
}

/** Depth-first order: each unit followed by its children (an orphan's parent missing → top level). */
function ordered(rows: Row[]): { row: Row; depth: number }[] {
  const ids = new Set(rows.map((r) => r.unitId));
  const children = new Map<string | null, Row[]>();
  for (const r of rows) {
    const parent = r.parentId && ids.has(r.parentId) ? r.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), r]);
  }
  const out: { row: Row; depth: number }[] = [];
  const walk = (parent: string | null, depth: number) => {
    for (const r of children.get(parent) ?? []) {
      out.push({ row: r, depth });
      walk(r.unitId, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}
