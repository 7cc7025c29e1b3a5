import { EmptyState, PageHeader, QueryView } from '../../components/ui';
import { useAllocation } from '../../queries/spend';
import { paths } from '../../routes';
import { dollars } from './common';
import { treeOrder } from './tree';

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
            {r.rows.length === 0 ? <EmptyState next={{ label: 'Create a spend unit and its rules', to: paths.spendUnits }}>No spend unit yet: every dollar is unattributed.</EmptyState> : null}
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
                {treeOrder(r.rows, (row) => row.unitId).map(({ row, depth }) => (
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
