import type { Schemas } from '../../api';
import { ledgerCredits } from '../../credit-figures';
import { PoolCard, type UsageReport } from '../../components/credit-views';
import { DataTable, type Column } from '../../components/data-table';
import { Credits, Time } from '../../components/figures';
import { usePoolGrants, usePoolLedger } from '../../queries/credits';

type Grant = Schemas['CreditGrant'];
type Transaction = Schemas['CreditTransaction'];

const GRANT_COLUMNS: Column<Grant>[] = [
  { header: 'Type', cell: (g) => g.grantType },
  { header: 'Credits', num: true, cell: (g) => <Credits amount={g.amount} /> },
  { header: 'Remaining', num: true, cell: (g) => <Credits amount={g.remaining} /> },
  { header: 'Expires', cell: (g) => (g.expiresAt ? <Time iso={g.expiresAt} /> : 'never') },
  { header: 'Granted', cell: (g) => <Time iso={g.createdAt} /> },
];

const LEDGER_COLUMNS: Column<Transaction>[] = [
  { header: 'When', cell: (t) => <Time iso={t.createdAt} /> },
  { header: 'Type', cell: (t) => t.transactionType },
  { header: 'Credits', num: true, cell: (t) => <Credits amount={ledgerCredits(t)} /> },
  { header: 'Held', num: true, cell: (t) => <Credits amount={t.heldChange} /> },
  { header: 'Balance before', num: true, cell: (t) => <Credits amount={t.balanceBefore} /> },
  { header: 'Balance after', num: true, cell: (t) => <Credits amount={t.balanceAfter} /> },
  { header: 'Description', cell: (t) => t.description ?? '' },
];

/** A customer's pool with its grants and its whole ledger. */
export function Pool({ pool, projection, asOf }: { pool: Schemas['CreditPool']; projection: UsageReport['creditPools'][number] | undefined; asOf: string | undefined }) {
  const grants = usePoolGrants(pool.id);
  const ledger = usePoolLedger(pool.id);
  return (
    <PoolCard pool={pool} projection={projection} asOf={asOf} ledger={ledger.data}>
      <h4>Grants</h4>
      <DataTable label={`Grants of ${pool.name}`} what="grants" query={grants} columns={GRANT_COLUMNS} rows={grants.data} rowKey={(g) => g.id} empty="No grant." />
      <h4>Ledger</h4>
      <DataTable label={`Ledger of ${pool.name}`} what="the ledger" query={ledger} columns={LEDGER_COLUMNS} rows={ledger.data} rowKey={(t) => t.id} empty="No ledger entry." />
    </PoolCard>
  );
}
