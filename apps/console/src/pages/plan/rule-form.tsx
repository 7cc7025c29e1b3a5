import { useState } from 'react';
import type { Schemas } from '../../api';
import { useConfirm } from '../../components/confirm-dialog';
import { Check, Field, Form } from '../../components/form';
import { CreditModelPicker, FeaturePicker } from '../../components/pickers';
import { useSaveRule, type RuleValue } from '../../queries/catalog';
import { BLANK_RULE, valueOf, type RuleDraft } from './rule-draft';
import { CostFields, PricingFields } from './rule-fields';

type Plan = Schemas['Plan'];

type Props = {
  plan: Plan;
  /** The linked feature whose rule is edited; absent: link a new feature (picked from `exclude`'s complement). */
  featureId?: string;
  featureName?: string;
  initial?: RuleDraft;
  /** Features already linked (not offered again). */
  exclude?: string[];
  onDone?: () => void;
};

/**
 * A plan-feature rule with typed inputs for every shape of the contract (§3.3): included, a usage
 * price or graduated tiers, with the unit, the per-period limit and reset mode; an optional cost
 * (simple, or per AI model); the credit model it draws from; enabled or not.
 */
export function RuleForm({ plan, featureId, featureName, initial = BLANK_RULE, exclude, onDone }: Props) {
  const [d, setDraft] = useState(initial);
  const [picked, setPicked] = useState('');
  const editing = featureId !== undefined;
  const save = useSaveRule(plan.id, editing, () => {
    if (!editing) {
      setDraft(BLANK_RULE);
      setPicked('');
    }
    onDone?.();
  });
  const set = (patch: Partial<RuleDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const { ask, dialog } = useConfirm();
  const send = () => save.mutate({ featureId: featureId ?? picked, isEnabled: d.enabled, value: valueOf(d) as RuleValue, creditModelId: d.creditModelId || null });
  // Subscribers of an ACTIVE plan are priced (and entitled) by the rule at once: a change there asks first.
  const submit = () =>
    plan.status === 'ACTIVE'
      ? ask({
          title: `${editing ? `Change the rule of ${featureName}` : 'Link this feature'} on ${plan.name ?? plan.key}?`,
          body: d.enabled ? 'Every subscriber of the plan is priced by this rule from now on.' : 'The feature is disabled: every subscriber of the plan loses it at once.',
          confirm: editing ? 'Save rule' : 'Link feature',
          onConfirm: send,
        })
      : send();
  return (
    <Form
      label={editing ? `Rule of ${featureName}` : 'Link a feature'}
      layout="grid"
      submission={save}
      onSubmit={submit}
      submit={editing ? 'Save rule' : 'Link feature'}
      failed={editing ? 'Rule not saved' : 'Feature not linked'}
      after={onDone ? <button type="button" className="secondary" onClick={onDone}>Cancel</button> : null}
    >
      {editing ? null : (
        <Field label="Feature" name="featureId">
          <FeaturePicker name="featureId" required value={picked} onChange={setPicked} exclude={exclude} />
        </Field>
      )}
      <Check label="Enabled" checked={d.enabled} onChange={(enabled) => set({ enabled })} />
      <PricingFields d={d} set={set} />
      <CostFields d={d} set={set} />
      <Field label="Credit model (usage burns its credits)" name="creditModelId">
        <CreditModelPicker placeholder="None: billed in money" value={d.creditModelId} onChange={(creditModelId) => set({ creditModelId })} />
      </Field>
      {dialog}
    </Form>
  );
}
