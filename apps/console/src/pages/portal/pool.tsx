import type { Schemas } from '../../api';
import { PoolCard, type UsageReport } from '../../components/credit-views';
import { DataTable, type Column } from '../../components/data-table';
import { Credits, Time } from '../../components/figures';
import { ledgerCredits } from '../../credit-figures';
import { formatCredits } from '../../format';
import { usePortalLedger } from '../../queries/portal';

type Transaction = Schemas['CreditTransaction'];
const RECENT_ENTRIES = 20;

/** What a usage event's draw was for: its units × credits per unit, from the ledger row's metadata. */
function drawnFor(t: Transaction): string {
  const m = (t.metadata ?? {}) as { usage_units?: number | string; credits_per_unit?: number | string };
  if (m.usage_units === undefined) return '';
  return `${formatCredits(m.usage_units)} units × ${formatCredits(m.credits_per_unit ?? 1)}`;
}

const COLUMNS: Column<Transaction>[] = [
  { header: 'When', cell: (t) => <Time iso={t.createdAt} /> },
  { header: 'Type', cell: (t) => t.transactionType },
  { header: 'Credits', num: true, cell: (t) => <Credits amount={ledgerCredits(t)} /> },
  { header: 'Balance after', num: true, cell: (t) => <Credits amount={t.balanceAfter} /> },
  { header: 'For', cell: (t) => [t.description, drawnFor(t)].filter(Boolean).join(' · ') },
];

/** A pool as the customer sees it: figures, burndown and the latest activity, newest first. */
export function PortalPool(props: { customerRef: string; pool: Schemas['CreditPool']; projection: UsageReport['creditPools'][number] | undefined; asOf: string | undefined }) {
  const { pool } = props;
  const ledger = usePortalLedger(props.customerRef, pool.id);
  return (
    <PoolCard pool={pool} projection={props.projection} asOf={props.asOf} ledger={ledger.data}>
      <h4>Recent activity</h4>
      <DataTable
        label={`Recent activity of ${pool.name}`}
        what="the activity"
        query={ledger}
        columns={COLUMNS}
        rows={ledger.data?.slice(-RECENT_ENTRIES).reverse()}
        rowKey={(t) => t.id}
        empty="No activity yet."
      />
    </PoolCard>
  );
}
