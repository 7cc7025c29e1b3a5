import { useState } from 'react';
import type { Schemas } from '../../api';
import { Money, Time } from '../../components/figures';
import { Check, Field, Form } from '../../components/form';
import { ErrorNote, StatusNote } from '../../components/ui';
import {
  useAutoTopupRule,
  useDefaultCard,
  usePlanChange,
  usePlanChangePreview,
  usePortalCancel,
  usePortalPlans,
  usePortalSubscribe,
  useSaveAutoTopup,
  useSetupCheckout,
  useUndoPlanChange,
  type PlanChangeInput,
} from '../../queries/portal';

type Subscription = Schemas['Subscription'];
type Scope = Schemas['OwnPortalSession']['scopes'][number];

/** Whether the link may save a card: any of purchase, plan_change, auto_topup (api-contract-money.md §3.2). */
export const mayPay = (scopes: readonly Scope[]) => scopes.some((s) => s === 'purchase' || s === 'plan_change' || s === 'auto_topup');

/** The subscription the portal acts on: the first one that has not ended. */
export const currentSubscription = (subscriptions: Subscription[]) => subscriptions.find((s) => s.status !== 'CANCELLED');

/**
 * Plan actions a link allows (ADR 0038): with plan_change the catalog, subscribe, and a plan change
 * whose proration the API computes is shown before it is confirmed; with cancel, cancel at the end
 * of the period and its undo. Nothing is offered that the link's flags do not open.
 */
export function PlanActions({ scopes, subscriptions }: { scopes: readonly Scope[]; subscriptions: Subscription[] }) {
  const current = currentSubscription(subscriptions);
  return (
    <>
      {scopes.includes('cancel') && current ? <CancelAction subscription={current} /> : null}
      {scopes.includes('plan_change') ? <PlanCatalog current={current} /> : null}
    </>
  );
}

function CancelAction({ subscription }: { subscription: Subscription }) {
  const cancel = usePortalCancel();
  const scheduled = subscription.status === 'CANCEL_SCHEDULED';
  return (
    <div className="inline-form" aria-label="Cancellation">
      <ErrorNote error={cancel.error} title={scheduled ? 'Cancellation not undone' : 'Not cancelled'} />
      {scheduled ? (
        <p>
          Your plan ends on <Time iso={subscription.cancelEffectiveAt!} />.{' '}
          <button type="button" className="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate({ subscriptionId: subscription.id, undo: true })}>
            Keep my plan
          </button>
        </p>
      ) : (
        <button type="button" className="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate({ subscriptionId: subscription.id, undo: false })}>
          Cancel at the end of the period
        </button>
      )}
    </div>
  );
}

function PlanCatalog({ current }: { current: Subscription | undefined }) {
  const plans = usePortalPlans(true);
  const preview = usePlanChangePreview();
  const [asked, setAsked] = useState<PlanChangeInput | null>(null);
  const change = usePlanChange(() => {
    setAsked(null);
    preview.reset();
  });
  const undo = useUndoPlanChange();
  const subscribe = usePortalSubscribe();
  const currentPrice = current?.plan?.priceAmount;
  const others = (plans.data?.items ?? []).filter((p) => p.plan.id !== current?.plan?.id);
  const ask = (planId: string, price: number | string | null | undefined) => {
    if (!current) return;
    const input: PlanChangeInput = { subscriptionId: current.id, changeToPlanId: planId, changeType: Number(price ?? 0) > Number(currentPrice ?? 0) ? 'UPGRADE' : 'DOWNGRADE' };
    setAsked(input);
    change.reset();
    preview.mutate(input);
  };
  return (
    <>
      <h3>Change plan</h3>
      <ErrorNote error={plans.error} title="No plans" />
      {current?.scheduledChange ? (
        <p>
          A change to another plan is scheduled.{' '}
          <button type="button" className="secondary" disabled={undo.isPending} onClick={() => undo.mutate(current.id)}>
            Keep the current plan
          </button>
        </p>
      ) : null}
      <ul className="plain-list" aria-label="Plans">
        {others.map(({ plan }) => (
          <li key={plan.id}>
            <strong>{plan.name}</strong> {plan.priceAmount !== null && plan.priceAmount !== undefined ? <Money amount={plan.priceAmount} currency={plan.currency} /> : null}{' '}
            {current ? (
              <button type="button" className="secondary" disabled={preview.isPending} onClick={() => ask(plan.id, plan.priceAmount)}>
                Change to {plan.name}
              </button>
            ) : (
              <button type="button" className="secondary" disabled={subscribe.isPending} onClick={() => subscribe.mutate(plan.id)}>
                Subscribe to {plan.name}
              </button>
            )}
          </li>
        ))}
      </ul>
      <ErrorNote error={subscribe.error} title="Not subscribed" />
      <ErrorNote error={preview.error} title="No preview" />
      {asked && preview.data ? (
        <section className="card" aria-label="Plan change preview">
          {preview.data.invoice ? (
            <p>
              Charged now for the rest of this period: <Money amount={preview.data.invoice.amount} currency={preview.data.invoice.currency} />
            </p>
          ) : (
            <p>Nothing is charged now: the new plan starts at the end of this period.</p>
          )}
          <button type="button" disabled={change.isPending} onClick={() => change.mutate(asked)}>
            Confirm the change
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setAsked(null)}>
            Not now
          </button>
          <ErrorNote error={change.error} title="Plan not changed" />
        </section>
      ) : null}
      {change.isSuccess ? <StatusNote className="notice">Plan changed.</StatusNote> : null}
    </>
  );
}

/** The saved card and the hosted page to add or replace it (the browser goes to the processor and comes back). */
export function CardSection({ customerRef }: { customerRef: string }) {
  const card = useDefaultCard(customerRef, true);
  const setup = useSetupCheckout(customerRef);
  return (
    <>
      <h2>Payment method</h2>
      <ErrorNote error={card.error ?? setup.error} title="Card not available" />
      <p data-testid="saved-card">
        {card.data
          ? `${card.data.brand ?? 'Card'}${card.data.last4 ? ` ending ${card.data.last4}` : ''}${card.data.expMonth && card.data.expYear ? `, expires ${card.data.expMonth}/${card.data.expYear}` : ''}`
          : card.isLoading
            ? 'Loading…'
            : 'No card saved.'}{' '}
        <button type="button" className="secondary" disabled={setup.isPending} onClick={() => setup.mutate()}>
          {card.data ? 'Replace card' : 'Add card'}
        </button>
      </p>
    </>
  );
}

/** A pool's auto top-up rule (state, amounts), set or removed by the customer when the link allows it. */
export function AutoTopupForm({ customerRef, pool }: { customerRef: string; pool: Schemas['CreditPool'] }) {
  const rule = useAutoTopupRule(customerRef, pool.id);
  const save = useSaveAutoTopup(customerRef, pool.id);
  const [draft, setDraft] = useState<{ enabled: boolean; threshold: string; topupCredits: string; maxMonthlyAmount: string } | null>(null);
  const current = rule.data;
  const form = draft ?? {
    enabled: current?.enabled ?? true,
    threshold: current ? String(current.threshold) : '',
    topupCredits: current ? String(current.topupCredits) : '',
    maxMonthlyAmount: current?.maxMonthlyAmount !== null && current?.maxMonthlyAmount !== undefined ? String(current.maxMonthlyAmount) : '',
  };
  const set = (patch: Partial<typeof form>) => setDraft({ ...form, ...patch });
  return (
    <section aria-label={`Auto top-up of ${pool.name}`}>
      <h3>Auto top-up: {pool.name}</h3>
      {current ? (
        <p className="muted" data-testid="auto-topup-state">
          {current.state}
          {current.amountPerTopup !== null && current.currency ? (
            <>
              {' '}
              · <Money amount={current.amountPerTopup} currency={current.currency} /> per top-up
            </>
          ) : null}
        </p>
      ) : null}
      <Form
        label={`Auto top-up of ${pool.name}`}
        submission={save}
        onSubmit={() =>
          save.mutate({ enabled: form.enabled, threshold: form.threshold.trim(), topupCredits: form.topupCredits.trim(), maxMonthlyAmount: form.maxMonthlyAmount.trim() || null }, { onSuccess: () => setDraft(null) })
        }
        submit="Save auto top-up"
        pending="Saving…"
        failed="Not saved"
      >
        <Check label="On" checked={form.enabled} onChange={(enabled) => set({ enabled })} />
        <Field label="When the balance falls below" name="threshold">
          <input inputMode="decimal" required value={form.threshold} onChange={(e) => set({ threshold: e.target.value })} />
        </Field>
        <Field label="Buy credits" name="topupCredits">
          <input inputMode="decimal" required value={form.topupCredits} onChange={(e) => set({ topupCredits: e.target.value })} />
        </Field>
        <Field label="At most per month (optional)" name="maxMonthlyAmount">
          <input inputMode="decimal" value={form.maxMonthlyAmount} onChange={(e) => set({ maxMonthlyAmount: e.target.value })} />
        </Field>
      </Form>
      {current ? (
        <button type="button" className="secondary" disabled={save.isPending} onClick={() => save.mutate(null, { onSuccess: () => setDraft(null) })}>
          Remove auto top-up
        </button>
      ) : null}
    </section>
  );
}
