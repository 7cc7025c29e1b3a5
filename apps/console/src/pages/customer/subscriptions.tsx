/**
 * The customer's subscriptions and what the operator does with them, each through the Client API:
 * subscribe (a plan picker of ACTIVE plans), change plan (previewed first: plan-change.tsx), cancel
 * at the period end or now, and undo what is scheduled (a cancellation, a plan change).
 */
import { useState } from 'react';
import type { Schemas } from '../../api';
import { SubscriptionsTable, planNameOf } from '../../components/billing-tables';
import { useConfirm } from '../../components/confirm-dialog';
import { Money, Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PlanPicker } from '../../components/pickers';
import { ErrorNote, SecondaryButton } from '../../components/ui';
import { useCancelSubscription, useSubscribe, useUndoScheduled, type CancelMode } from '../../queries/billing';
import { usePlans } from '../../queries/catalog';
import { PlanChangeForm } from './plan-change';

type Subscription = Schemas['Subscription'];
type ScheduledChange = { type: string; toPlan: string; effectiveAt: string; status: string };

const CANCEL: Record<CancelMode, { label: string; body: string }> = {
  END_OF_PERIOD: { label: 'Cancel at period end', body: 'It stays active until the period ends, then ends and its plan credits are clawed back. You can undo it until then.' },
  IMMEDIATE: {
    label: 'Cancel now',
    body: 'It ends at once: entitlements stop, its open invoices are voided, an in-advance plan is refunded the unused share of the period by a CREDIT invoice, and plan credits are clawed back.',
  },
};

export function CustomerSubscriptions({ customerId, customerRef, subscriptions }: { customerId: string; customerRef: string; subscriptions: Subscription[] }) {
  const [changing, setChanging] = useState<string | null>(null);
  const cancel = useCancelSubscription(customerId);
  const undo = useUndoScheduled(customerId);
  const plans = usePlans();
  const { ask, dialog } = useConfirm();
  const busy = cancel.isPending || undo.isPending;
  const askCancel = (s: Subscription, cancelMode: CancelMode) =>
    ask({
      title: `${CANCEL[cancelMode].label}: ${planNameOf(s.plan)}?`,
      body: CANCEL[cancelMode].body,
      confirm: CANCEL[cancelMode].label,
      onConfirm: () => cancel.mutate({ subscriptionId: s.id, cancelMode }),
    });
  const button = (label: string, onClick: () => void) => (
    <SecondaryButton key={label} disabled={busy} onClick={onClick}>
      {label}
    </SecondaryButton>
  );
  const actions = (s: Subscription) => {
    const pending = s.scheduledChange as ScheduledChange | null;
    const planOf = (id: string) => planNameOf(plans.data?.find((p) => p.id === id));
    return (
      <div className="row-actions">
        {pending?.status === 'PENDING' ? (
          <span className="muted small">
            {pending.type === 'DOWNGRADE' ? 'Downgrade' : 'Change'} to {planOf(pending.toPlan)} on <Time iso={pending.effectiveAt} dateOnly />
          </span>
        ) : null}
        {s.status === 'ACTIVE' || s.status === 'CANCEL_SCHEDULED' ? button('Change plan', () => setChanging(s.id)) : null}
        {pending?.status === 'PENDING' ? button('Undo plan change', () => undo.mutate({ subscriptionId: s.id, what: 'planChange' })) : null}
        {s.status === 'CANCEL_SCHEDULED' ? button('Undo cancellation', () => undo.mutate({ subscriptionId: s.id, what: 'cancellation' })) : null}
        {s.status === 'ACTIVE' ? button(CANCEL.END_OF_PERIOD.label, () => askCancel(s, 'END_OF_PERIOD')) : null}
        {s.status !== 'CANCELLED' ? button(CANCEL.IMMEDIATE.label, () => askCancel(s, 'IMMEDIATE')) : null}
      </div>
    );
  };
  const target = subscriptions.find((s) => s.id === changing);
  return (
    <>
      <SubscribeForm customerId={customerId} customerRef={customerRef} />
      <ErrorNote error={cancel.error} title="Subscription not cancelled" />
      <ErrorNote error={undo.error} title="Not undone" />
      <SubscriptionsTable label="Subscriptions" subscriptions={subscriptions} action={actions} empty="No subscription yet: subscribe the customer to a plan with the form above." />
      {target ? <PlanChangeForm key={target.id} customerId={customerId} subscription={target} onDone={() => setChanging(null)} /> : null}
      {dialog}
    </>
  );
}

/** Subscribes the customer to an ACTIVE plan, after a confirmation naming the price it bills. */
function SubscribeForm({ customerId, customerRef }: { customerId: string; customerRef: string }) {
  const [planId, setPlanId] = useState('');
  const subscribe = useSubscribe(customerId, customerRef);
  const plan = usePlans().data?.find((p) => p.id === planId);
  const { ask, dialog } = useConfirm();
  const confirm = () =>
    ask({
      title: `Subscribe ${customerRef} to ${planNameOf(plan)}?`,
      body: (
        <>
          It bills <Money amount={plan?.priceAmount ?? 0} currency={plan?.currency ?? 'USD'} /> per period
          {plan?.billingTiming === 'IN_ARREARS' ? ', at each period end' : ': a paid plan raises its first invoice now, due at once'}.
        </>
      ),
      confirm: 'Subscribe',
      onConfirm: () => subscribe.mutate(planId, { onSuccess: () => setPlanId('') }),
    });
  return (
    <>
      <Form label="Subscribe" submission={subscribe} onSubmit={confirm} submit="Subscribe" pending="Subscribing…" failed="Not subscribed">
        <Field label="Plan" name="planId">
          <PlanPicker name="planId" required statuses={['ACTIVE']} value={planId} onChange={setPlanId} />
        </Field>
      </Form>
      {dialog}
    </>
  );
}
