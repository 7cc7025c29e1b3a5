import { useParams } from 'react-router';
import { MaybeMoney, Stats } from '../../components/figures';
import { PageHeader, QueryView, StatusBadge } from '../../components/ui';
import { usePlan } from '../../queries/catalog';
import { EditPlanForm } from './plan-fields';
import { PlanRules } from './rules';
import { StatusActions } from './status';

/** A plan: its status moves (activation names every missing part), its fields while editable, its features and their rules. */
export default function PlanPage() {
  const { planId } = useParams() as { planId: string };
  const plan = usePlan(planId);
  return (
    <QueryView query={plan} what="the plan">
      {({ plan: p, features }) => (
        <section>
          <PageHeader title={p.name ?? p.key}>
            <StatusBadge status={p.status} />
          </PageHeader>
          <Stats
            items={[
              { label: 'Key', value: <code>{p.key}</code> },
              { label: 'Price per period', value: <MaybeMoney amount={p.priceAmount} currency={p.currency} /> },
              { label: 'Interval', value: p.intervalMonths ? `${p.intervalMonths} mo · ${p.billingTiming === 'IN_ADVANCE' ? 'in advance' : 'in arrears'}` : '—' },
            ]}
          />
          {p.description ? <p>{p.description}</p> : null}
          <StatusActions plan={p} />
          {p.status !== 'ARCHIVED' ? <EditPlanForm plan={p} /> : null}
          <h2>Features and rules</h2>
          <PlanRules plan={p} features={features} />
        </section>
      )}
    </QueryView>
  );
}
