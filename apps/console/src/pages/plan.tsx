import { useState } from 'react';
import { useParams } from 'react-router';
import type { Schemas } from '../api';
import { DataTable, type Column } from '../components/data-table';
import { MaybeMoney, Stats } from '../components/figures';
import { Field, Form } from '../components/form';
import { ErrorNote, PageHeader, QueryView, StatusBadge } from '../components/ui';
import { useFeatures, useLinkFeature, usePlan, usePlanRule, useSetPlanStatus, type RuleValue } from '../queries/catalog';

const RULE_TEMPLATE = JSON.stringify({ pricing: { model: 'usage', usage_unit_type: 'units', price_per_unit: 0.01, max_usage: 1000 } }, null, 2);

type Plan = Schemas['Plan'];
type Feature = Schemas['Feature'];

/** A plan: its status moves (activation errors inline), its linked features and their rules. */
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
              { label: 'Interval', value: p.intervalMonths ? `${p.intervalMonths} mo` : '—' },
            ]}
          />
          {p.description ? <p>{p.description}</p> : null}
          <StatusActions plan={p} />
          <h2>Features and rules</h2>
          <DataTable
            label="Plan features"
            columns={ruleColumns(p)}
            rows={features}
            rowKey={(f) => f.id}
            empty="No feature linked: a plan needs one before it can be activated."
          />
          {p.status !== 'ARCHIVED' ? <LinkFeatureForm plan={p} linked={features.map((f) => f.id)} /> : null}
        </section>
      )}
    </QueryView>
  );
}

const NEXT_STATUS: Record<Plan['status'], { status: Plan['status']; label: string }> = {
  DRAFT: { status: 'ACTIVE', label: 'Activate plan' },
  ACTIVE: { status: 'ARCHIVED', label: 'Archive plan' },
  ARCHIVED: { status: 'ACTIVE', label: 'Reactivate plan' },
};

/** DRAFT → ACTIVE → ARCHIVED (and back to ACTIVE); the API's refusal is shown where the button is. */
function StatusActions({ plan }: { plan: Plan }) {
  const move = useSetPlanStatus(plan.id);
  const next = NEXT_STATUS[plan.status];
  return (
    <div className="row status-actions">
      <button type="button" disabled={move.isPending} onClick={() => move.mutate(next.status)}>
        {next.label}
      </button>
      <ErrorNote error={move.error} title="Not changed" />
    </div>
  );
}

function ruleColumns(plan: Plan): Column<Feature>[] {
  return [
    {
      header: 'Feature',
      cell: (f) => (
        <>
          {f.name} <code>{f.key}</code>
        </>
      ),
    },
    { header: 'Rule (pricing and caps)', cell: (f) => <Rule planId={plan.id} featureId={f.id} /> },
    { header: 'Enabled', cell: (f) => <RuleEnabled planId={plan.id} featureId={f.id} /> },
  ];
}

function Rule({ planId, featureId }: { planId: string; featureId: string }) {
  const rule = usePlanRule(planId, featureId);
  return (
    <QueryView query={rule} what="the rule">
      {(r) => <pre className="rule-value">{JSON.stringify(r.value, null, 2)}</pre>}
    </QueryView>
  );
}

function RuleEnabled({ planId, featureId }: { planId: string; featureId: string }) {
  const rule = usePlanRule(planId, featureId);
  return <>{rule.data ? (rule.data.enabled ? 'Yes' : 'No') : ''}</>;
}

/** The rule as typed, parsed; a message when it is not JSON (the API validates the rest). */
function parseRule(text: string): { value: RuleValue } | { problem: string } {
  try {
    return { value: JSON.parse(text) as RuleValue };
  } catch (err) {
    return { problem: `The rule is not valid JSON: ${(err as Error).message}` };
  }
}

function LinkFeatureForm({ plan, linked }: { plan: Plan; linked: string[] }) {
  const features = useFeatures();
  const [featureId, setFeatureId] = useState('');
  const [value, setValue] = useState(RULE_TEMPLATE);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const link = useLinkFeature(plan.id, () => setFeatureId(''));
  const available = (features.data ?? []).filter((f) => !linked.includes(f.id));
  function submit() {
    const parsed = parseRule(value);
    setJsonError('problem' in parsed ? parsed.problem : null);
    if ('value' in parsed) link.mutate({ featureId, value: parsed.value });
  }
  return (
    <Form label="Link a feature" submission={link} onSubmit={submit} submit="Link feature" failed="Feature not linked">
      <Field label="Feature">
        <select name="featureId" required value={featureId} onChange={(e) => setFeatureId(e.target.value)}>
          <option value="">Choose a feature…</option>
          {available.map((f) => (
            <option key={f.id} value={f.id}>
              {f.name} ({f.key})
            </option>
          ))}
        </select>
      </Field>
      <Field label="Rule (JSON: pricing with its caps)" className="grow">
        <textarea name="value" rows={6} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} />
      </Field>
      {jsonError ? (
        <p role="alert" className="error-note">
          {jsonError}
        </p>
      ) : null}
    </Form>
  );
}
