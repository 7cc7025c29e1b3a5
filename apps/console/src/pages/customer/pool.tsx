import type { Schemas } from '../../api';
import { ledgerCredits } from '../../credit-figures';
import { ConfirmButton, useConfirm, type ConfirmRequest } from '../../components/confirm-dialog';
import { CreditMovementForm } from '../../components/credit-forms';
import { PoolCard, type UsageReport } from '../../components/credit-views';
import { DataTable, type Column } from '../../components/data-table';
import { Credits, Time } from '../../components/figures';
import { ErrorNote } from '../../components/ui';
import { subtractDecimals } from '../../format';
import { usePoolGrants, usePoolLedger, useReverseTransaction } from '../../queries/credits';
import { AutoTopup } from './auto-topup';
import { PoolLinks } from './pool-links';

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

/** Ledger rows an operator may reverse: grants and deductions not reversed yet (the API refuses the rest). */
const REVERSIBLE = new Set(['GRANT', 'DEDUCTION']);

/** A customer's pool with its links, a grant or deduction, its grants and its whole ledger (each grant or deduction reversible once). */
export function Pool({ pool, projection, asOf, customerRef }: { pool: Schemas['CreditPool']; projection: UsageReport['creditPools'][number] | undefined; asOf: string | undefined; customerRef?: string }) {
  const grants = usePoolGrants(pool.id);
  const ledger = usePoolLedger(pool.id);
  const reverse = useReverseTransaction();
  const { ask, dialog } = useConfirm();
  const reversed = new Set((ledger.data ?? []).map((t) => t.reversedTransactionId).filter(Boolean));
  const reversing = (t: Transaction): ConfirmRequest => {
    const back = subtractDecimals('0', t.amount);
    return {
      title: `Reverse the ${t.transactionType} of ${ledgerCredits(t)} ${pool.denomination}?`,
      body: (
        <>
          A REVERSAL of <Credits amount={back} /> {pool.denomination} is added to the ledger: the balance of {pool.name} {back.startsWith('-') ? 'falls' : 'rises'} by exactly{' '}
          <Credits amount={back.replace(/^-/, '')} /> {pool.denomination}.
        </>
      ),
      confirm: 'Reverse',
      onConfirm: () => reverse.mutate(t.id),
    };
  };
  const reverseColumn: Column<Transaction> = {
    header: 'Actions',
    hiddenHeader: true,
    cell: (t) =>
      REVERSIBLE.has(t.transactionType) && !reversed.has(t.id) ? (
        <ConfirmButton ask={ask} name={`Reverse ${t.transactionType} of ${ledgerCredits(t)}`} request={reversing(t)}>
          Reverse
        </ConfirmButton>
      ) : null,
  };
  return (
    <PoolCard pool={pool} projection={projection} asOf={asOf} ledger={ledger.data}>
      {pool.customerId ? <PoolLinks pool={pool} customerId={pool.customerId} /> : null}
      {customerRef ? <AutoTopup pool={pool} customerRef={customerRef} /> : null}
      <h4>Grant or deduct</h4>
      <CreditMovementForm pool={pool} />
      <h4>Grants</h4>
      <DataTable label={`Grants of ${pool.name}`} what="grants" query={grants} columns={GRANT_COLUMNS} rows={grants.data} rowKey={(g) => g.id} empty="No grant yet: grant credits above." />
      <h4>Ledger</h4>
      <DataTable label={`Ledger of ${pool.name}`} what="the ledger" query={ledger} columns={[...LEDGER_COLUMNS, reverseColumn]} rows={ledger.data} rowKey={(t) => t.id} empty="No ledger entry." />
      <ErrorNote error={reverse.error} title="Not reversed" />
      {dialog}
    </PoolCard>
  );
}
