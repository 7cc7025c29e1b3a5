import { useState } from 'react';
import type { Schemas } from '../../api';
import { useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { ErrorNote, QueryView } from '../../components/ui';
import { useDeleteRule, useFeatures, usePlanRule } from '../../queries/catalog';
import { paths } from '../../routes';
import { draftOf } from './rule-draft';
import { RuleForm } from './rule-form';
import { RuleSummary } from './rule-summary';

type Plan = Schemas['Plan'];
type Feature = Schemas['Feature'];

/** A linked feature's rule in words and figures. */
function RuleCell({ plan, featureId }: { plan: Plan; featureId: string }) {
  const rule = usePlanRule(plan.id, featureId);
  return <QueryView query={rule} what="the rule">{(r) => <RuleSummary d={draftOf(r)} currency={plan.currency} creditModel={r.creditModelName} />}</QueryView>;
}

function Enabled({ plan, featureId }: { plan: Plan; featureId: string }) {
  const rule = usePlanRule(plan.id, featureId).data;
  return <>{rule ? (rule.enabled ? 'Yes' : 'No') : ''}</>;
}

/** The form of a linked feature's rule, once the rule is read. */
function EditRule({ plan, feature, onDone }: { plan: Plan; feature: Feature; onDone: () => void }) {
  const rule = usePlanRule(plan.id, feature.id);
  return <QueryView query={rule} what="the rule">{(r) => <RuleForm plan={plan} featureId={feature.id} featureName={feature.name} initial={draftOf(r)} onDone={onDone} />}</QueryView>;
}

/** The plan's linked features with their rules: edit a rule in place, unlink a feature (confirmed), link another. */
export function PlanRules({ plan, features }: { plan: Plan; features: Feature[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  const unlink = useDeleteRule(plan.id);
  const all = useFeatures();
  const { ask, dialog } = useConfirm();
  const open = plan.status !== 'ARCHIVED';
  const actions = (f: Feature) => (
    <div className="row">
      <button type="button" className="secondary" aria-label={`Edit rule of ${f.name}`} onClick={() => setEditing(editing === f.id ? null : f.id)}>
        Edit rule
      </button>
      <button
        type="button"
        className="secondary"
        aria-label={`Unlink ${f.name}`}
        onClick={() => ask({ title: `Unlink ${f.name} from ${plan.name ?? plan.key}?`, body: 'Its rule is deleted; subscribers of the plan lose this feature at once.', confirm: 'Unlink feature', onConfirm: () => unlink.mutate(f.id) })}
      >
        Unlink
      </button>
    </div>
  );
  const columns: Column<Feature>[] = [
    { header: 'Feature', cell: (f) => <>{f.name} <code>{f.key}</code></> },
    { header: 'Rule (pricing, limit, cost)', cell: (f) => <RuleCell plan={plan} featureId={f.id} /> },
    { header: 'Enabled', cell: (f) => <Enabled plan={plan} featureId={f.id} /> },
    ...(open ? [{ header: 'Actions', hiddenHeader: true, cell: actions }] : []),
  ];
  const none = all.data?.length === 0;
  return (
    <>
      <DataTable
        label="Plan features"
        columns={columns}
        rows={features}
        rowKey={(f) => f.id}
        detail={(f) => (editing === f.id ? <EditRule plan={plan} feature={f} onDone={() => setEditing(null)} /> : null)}
        empty={none ? 'No feature linked, and the account has no feature yet: create one first, then link it here.' : 'No feature linked: a plan needs one before it can be activated. Link one with the form below.'}
        next={none ? { label: 'Create a feature', to: paths.features } : undefined}
      />
      <ErrorNote error={unlink.error} title="Not unlinked" />
      {open && !none ? <RuleForm plan={plan} exclude={features.map((f) => f.id)} /> : null}
      {dialog}
    </>
  );
}
