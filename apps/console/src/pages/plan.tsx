import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import type { paths } from '@tally/client';
import { api, unwrap, type Schemas } from '../api';
import { formatMoney } from '../format';
import { Empty, ErrorNote, PageHeader, QueryView, StatusBadge } from '../ui';

const RULE_TEMPLATE = JSON.stringify({ pricing: { model: 'usage', usage_unit_type: 'units', price_per_unit: 0.01, max_usage: 1000 } }, null, 2);

type Plan = Schemas['Plan'];
/** The rule document as typed by the operator; the API validates it and answers field by field. */
type RuleValue = NonNullable<paths['/api/v1/monetization/rules/plan-features']['post']['requestBody']>['content']['application/json']['value'];

/** A plan: its status moves (activation errors inline), its linked features and their rules. */
export default function PlanPage() {
  const { planId } = useParams() as { planId: string };
  const plan = useQuery({
    queryKey: ['plan', planId],
    queryFn: () => unwrap(api.GET('/api/v1/monetization/plans/{id}/features', { params: { path: { id: planId } } })),
  });
  return (
    <QueryView query={plan} what="the plan">
      {({ plan: p, features }) => (
        <section>
          <PageHeader title={p.name ?? p.key}>
            <StatusBadge status={p.status} />
          </PageHeader>
          <dl className="stats">
            <div className="stat">
              <dt>Key</dt>
              <dd>
                <code>{p.key}</code>
              </dd>
            </div>
            <div className="stat">
              <dt>Price per period</dt>
              <dd>{p.priceAmount === null ? '—' : formatMoney(p.priceAmount, p.currency)}</dd>
            </div>
            <div className="stat">
              <dt>Interval</dt>
              <dd>{p.intervalMonths ? `${p.intervalMonths} mo` : '—'}</dd>
            </div>
          </dl>
          {p.description ? <p>{p.description}</p> : null}
          <StatusActions plan={p} />
          <h2>Features and rules</h2>
          {features.length === 0 ? <Empty>No feature linked: a plan needs one before it can be activated.</Empty> : <RulesTable plan={p} features={features} />}
          {p.status !== 'ARCHIVED' ? <LinkFeatureForm plan={p} linked={features.map((f) => f.id)} /> : null}
        </section>
      )}
    </QueryView>
  );
}

/** DRAFT → ACTIVE → ARCHIVED (and back to ACTIVE); the API's refusal is shown where the button is. */
function StatusActions({ plan }: { plan: Plan }) {
  const queryClient = useQueryClient();
  const move = useMutation({
    mutationFn: (status: Plan['status']) =>
      unwrap(api.PATCH('/api/v1/monetization/plans/{id}', { params: { path: { id: plan.id } }, body: { status } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['plan', plan.id] });
      void queryClient.invalidateQueries({ queryKey: ['plans'] });
    },
  });
  const next: { status: Plan['status']; label: string }[] =
    plan.status === 'DRAFT'
      ? [{ status: 'ACTIVE', label: 'Activate plan' }]
      : plan.status === 'ACTIVE'
        ? [{ status: 'ARCHIVED', label: 'Archive plan' }]
        : [{ status: 'ACTIVE', label: 'Reactivate plan' }];
  return (
    <div className="row status-actions">
      {next.map((n) => (
        <button key={n.status} type="button" disabled={move.isPending} onClick={() => move.mutate(n.status)}>
          {n.label}
        </button>
      ))}
      <ErrorNote error={move.error} title="Not changed" />
    </div>
  );
}

function RulesTable({ plan, features }: { plan: Plan; features: Schemas['Feature'][] }) {
  return (
    <table aria-label="Plan features">
      <thead>
        <tr>
          <th scope="col">Feature</th>
          <th scope="col">Rule (pricing and caps)</th>
          <th scope="col">Enabled</th>
        </tr>
      </thead>
      <tbody>
        {features.map((f) => (
          <RuleRow key={f.id} plan={plan} feature={f} />
        ))}
      </tbody>
    </table>
  );
}

function RuleRow({ plan, feature }: { plan: Plan; feature: Schemas['Feature'] }) {
  const rule = useQuery({
    queryKey: ['rule', plan.id, feature.id],
    queryFn: () =>
      unwrap(api.GET('/api/v1/monetization/rules/plan-features/{planId}/{featureId}', { params: { path: { planId: plan.id, featureId: feature.id } } })),
  });
  return (
    <tr>
      <td>
        {feature.name} <code>{feature.key}</code>
      </td>
      <td>
        <QueryView query={rule} what="the rule">
          {(r) => <pre className="rule-value">{JSON.stringify(r.value, null, 2)}</pre>}
        </QueryView>
      </td>
      <td>{rule.data ? (rule.data.enabled ? 'Yes' : 'No') : ''}</td>
    </tr>
  );
}

function LinkFeatureForm({ plan, linked }: { plan: Plan; linked: string[] }) {
  const queryClient = useQueryClient();
  const features = useQuery({ queryKey: ['features'], queryFn: () => unwrap(api.GET('/api/v1/monetization/features')) });
  const [featureId, setFeatureId] = useState('');
  const [value, setValue] = useState(RULE_TEMPLATE);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const link = useMutation({
    mutationFn: (parsed: unknown) =>
      unwrap(api.POST('/api/v1/monetization/rules/plan-features', { body: { planId: plan.id, featureId, value: parsed as RuleValue } })),
    onSuccess: () => {
      setFeatureId('');
      void queryClient.invalidateQueries({ queryKey: ['plan', plan.id] });
    },
  });
  const available = (features.data ?? []).filter((f) => !linked.includes(f.id));
  function submit(event: FormEvent) {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      setJsonError(`The rule is not valid JSON: ${(err as Error).message}`);
      return;
    }
    setJsonError(null);
    link.mutate(parsed);
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Link a feature">
      <label>
        Feature
        <select name="featureId" required value={featureId} onChange={(e) => setFeatureId(e.target.value)}>
          <option value="">Choose a feature…</option>
          {available.map((f) => (
            <option key={f.id} value={f.id}>
              {f.name} ({f.key})
            </option>
          ))}
        </select>
      </label>
      <label className="grow">
        Rule (JSON: pricing with its caps)
        <textarea name="value" rows={6} value={value} onChange={(e) => setValue(e.target.value)} spellCheck={false} />
      </label>
      <button type="submit" disabled={link.isPending}>
        Link feature
      </button>
      {jsonError ? (
        <p role="alert" className="error-note">
          {jsonError}
        </p>
      ) : null}
      <ErrorNote error={link.error} title="Feature not linked" />
    </form>
  );
}
