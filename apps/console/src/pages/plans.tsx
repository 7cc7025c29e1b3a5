import { Link } from 'react-router';
import type { Schemas } from '../api';
import { DataTable, type Column } from '../components/data-table';
import { MaybeMoney, Time } from '../components/figures';
import { PageHeader, StatusBadge } from '../components/ui';
import { usePlans } from '../queries/catalog';
import { paths } from '../routes';
import { NewPlanForm } from './plan/plan-fields';

type Plan = Schemas['Plan'];

const COLUMNS: Column<Plan>[] = [
  { header: 'Plan', cell: (p) => <Link to={paths.plan(p.id)}>{p.name ?? p.key}</Link> },
  { header: 'Key', cell: (p) => <code>{p.key}</code> },
  { header: 'Price', num: true, cell: (p) => <MaybeMoney amount={p.priceAmount} currency={p.currency} /> },
  { header: 'Interval', cell: (p) => (p.intervalMonths ? `${p.intervalMonths} mo · ${p.billingTiming === 'IN_ADVANCE' ? 'in advance' : 'in arrears'}` : '—') },
  { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
  { header: 'Created', cell: (p) => <Time iso={p.createdAt} /> },
];

/** Plans of every status; a new plan starts DRAFT and opens its page. */
export default function PlansPage() {
  const plans = usePlans();
  return (
    <section>
      <PageHeader title="Plans" />
      <NewPlanForm />
      <DataTable
        label="Plans"
        query={plans}
        columns={COLUMNS}
        rows={plans.data}
        rowKey={(p) => p.id}
        empty="No plans yet: create the first one with the form above (it starts as a DRAFT), then link features and activate it."
        next={{ label: 'Start with a key', onClick: () => document.querySelector<HTMLInputElement>('form[aria-label="New plan"] input')?.focus() }}
      />
    </section>
  );
}
