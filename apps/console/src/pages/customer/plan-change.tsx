/**
 * Changing a subscription's plan: the operator picks the plan, the API previews the change (the
 * same code as the change, rolled back), the confirmation shows what is due now and at the period
 * end, and only then is the change made.
 */
import { useState } from 'react';
import type { Schemas } from '../../api';
import { planNameOf } from '../../components/billing-tables';
import { useConfirm } from '../../components/confirm-dialog';
import { Money, Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PlanPicker } from '../../components/pickers';
import { SecondaryButton } from '../../components/ui';
import { compareDecimals } from '../../format';
import { useChangePlan, usePreviewPlanChange, type PlanChange } from '../../queries/billing';
import { usePlans } from '../../queries/catalog';

type Subscription = Schemas['Subscription'];
type Plan = Schemas['Plan'];
type Preview = { subscription: Subscription | null; invoice: Schemas['Invoice'] | null };

/** Higher price: an upgrade (now, prorated); otherwise a downgrade (at the period end). */
const typeFor = (from: Plan | undefined, to: Plan | undefined): PlanChange['changeType'] =>
  compareDecimals(to?.priceAmount ?? 0, from?.priceAmount ?? 0) > 0 ? 'UPGRADE' : 'DOWNGRADE';

export function PlanChangeForm({ customerId, subscription, onDone }: { customerId: string; subscription: Subscription; onDone: () => void }) {
  const plans = usePlans();
  const currentId = (subscription.plan as { id?: string } | null)?.id ?? '';
  const [planId, setPlanId] = useState('');
  const [changeType, setChangeType] = useState<PlanChange['changeType']>('UPGRADE');
  const preview = usePreviewPlanChange();
  const change = useChangePlan(customerId);
  const { ask, dialog } = useConfirm();
  const planOf = (id: string) => plans.data?.find((p) => p.id === id);
  const pick = (id: string) => {
    setPlanId(id);
    setChangeType(typeFor(planOf(currentId), planOf(id)));
  };
  const request: PlanChange = { subscriptionId: subscription.id, changeToPlanId: planId, changeType };
  const confirm = (result: Preview) =>
    ask({
      title: `Change ${planNameOf(subscription.plan)} to ${planNameOf(planOf(planId))}?`,
      body: <PreviewSummary preview={result} to={planOf(planId)} />,
      confirm: 'Change plan',
      onConfirm: () => change.mutate(request, { onSuccess: onDone }),
    });
  return (
    <>
      <Form
        label={`Change plan of ${planNameOf(subscription.plan)}`}
        submission={{ isPending: preview.isPending || change.isPending, error: preview.error ?? change.error }}
        onSubmit={() => preview.mutate(request, { onSuccess: confirm })}
        submit="Preview change"
        pending="Previewing…"
        failed="Plan not changed"
        after={<SecondaryButton onClick={onDone}>Close</SecondaryButton>}
      >
        <Field label="New plan" name="changeToPlanId">
          <PlanPicker name="changeToPlanId" required statuses={['ACTIVE']} exclude={[currentId]} value={planId} onChange={pick} />
        </Field>
        <Field label="When" name="changeType">
          <select name="changeType" value={changeType} onChange={(e) => setChangeType(e.target.value as PlanChange['changeType'])}>
            <option value="UPGRADE">Upgrade now (prorated)</option>
            <option value="DOWNGRADE">Downgrade at the period end</option>
          </select>
        </Field>
      </Form>
      {dialog}
    </>
  );
}

/** What the preview says: the amount due now (the adjustment invoice and its lines) and from the period end. */
function PreviewSummary({ preview, to }: { preview: Preview; to: Plan | undefined }) {
  const { invoice, subscription } = preview;
  const change = subscription?.scheduledChange as { effectiveAt?: string } | null | undefined;
  const periodEnd = change?.effectiveAt ?? subscription?.currentPeriodEnd;
  const currency = invoice?.currency ?? to?.currency ?? 'USD';
  return (
    <>
      Due now:{' '}
      <strong data-testid="due-now">
        <Money amount={invoice?.amount ?? 0} currency={currency} />
      </strong>
      {invoice?.items?.length ? (
        <>
          {' '}
          ({invoice.items.map((i, n) => (
            <span key={i.id}>
              {n > 0 ? '; ' : ''}
              {i.description} <Money amount={i.chargeAmount} currency={currency} />
            </span>
          ))}
          )
        </>
      ) : null}
      . From <Time iso={periodEnd} dateOnly />:{' '}
      <strong data-testid="due-at-period-end">
        <Money amount={to?.priceAmount ?? 0} currency={currency} />
      </strong>{' '}
      per period on {planNameOf(to)}
      {to?.billingTiming === 'IN_ARREARS' ? ', billed with its usage at each period end' : ''}.
    </>
  );
}
