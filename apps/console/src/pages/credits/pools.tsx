import { useState } from 'react';
import { Link } from 'react-router';
import type { Schemas } from '../../api';
import { CreditMovementForm, NewPoolForm } from '../../components/credit-forms';
import { DataTable, type Column } from '../../components/data-table';
import { Credits } from '../../components/figures';
import { PoolPicker } from '../../components/pickers';
import { StatusBadge } from '../../components/ui';
import { useAllPools } from '../../queries/credits';
import { paths } from '../../routes';

type Pool = Schemas['CreditPool'];

const COLUMNS: Column<Pool>[] = [
  { header: 'Pool', cell: (p) => p.name },
  { header: 'Customer', cell: (p) => (p.customerId ? <Link to={paths.customer(p.customerId)}>Open customer</Link> : 'account-level') },
  { header: 'Denomination', cell: (p) => <code>{p.denomination}</code> },
  { header: 'Balance', num: true, cell: (p) => <Credits amount={p.balance} /> },
  { header: 'Granted', num: true, cell: (p) => <Credits amount={p.totalGranted} /> },
  { header: 'Consumed', num: true, cell: (p) => <Credits amount={p.totalConsumed} /> },
  { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
];

/**
 * Every pool of the account, a new pool (a customer's or account-level), and a grant or deduction
 * on any pool. A customer's page shows its pools' links, grants and ledger (with reversals).
 */
export function Pools() {
  const pools = useAllPools();
  const [poolId, setPoolId] = useState('');
  const chosen = pools.data?.find((p) => p.id === poolId);
  return (
    <>
      <h2>Credit pools</h2>
      <DataTable label="Credit pools" query={pools} columns={COLUMNS} rows={pools.data} rowKey={(p) => p.id} empty="No credit pool yet: create one below (a credit model comes first)." />
      <NewPoolForm />
      <h3>Grant or deduct credits</h3>
      <label>
        Pool
        <PoolPicker value={poolId} onChange={setPoolId} />
      </label>
      {chosen ? <CreditMovementForm key={chosen.id} pool={chosen} /> : null}
    </>
  );
}
