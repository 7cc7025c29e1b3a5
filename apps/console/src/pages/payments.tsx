import { useState } from 'react';
import type { Schemas } from '../api';
import { Stats } from '../components/figures';
import { Field, Form } from '../components/form';
import { PageHeader, QueryView } from '../components/ui';
import { useAccountSettings, useSaveAccountSettings } from '../queries/account';
import { useStoreStripeKey, useStripeConnection } from '../queries/payments';
import { CheckoutSessions } from './payments-checkouts';

const MODES = [
  ['NONE', 'None: no processor (disabled)'],
  ['PAYMENT_PASS_THROUGH', 'Pass-through: Tally bills, the processor charges'],
  ['PROCESSOR_INTEGRATION', 'Processor integration: the processor drives subscriptions'],
] as const;

/**
 * The payment processor: its mode (NONE disables it) and return URLs (account settings, each
 * validation message inline), the stored connection and its key's mode (test or live, replaced by
 * storing another key), and the account's hosted checkout sessions.
 */
export default function PaymentsPage() {
  const settings = useAccountSettings();
  return (
    <section>
      <PageHeader title="Payments" />
      <QueryView query={settings} what="payment settings">
        {(s) => (
          <>
            <Stats
              items={[
                { label: 'Mode', testId: 'stripe-mode', value: s.stripeMode },
                { label: 'Processor', testId: 'stripe-enabled', value: s.stripeEnabled ? 'enabled' : 'disabled' },
                { label: 'Currency', value: s.currency },
              ]}
            />
            <ModeForm s={s} />
          </>
        )}
      </QueryView>
      <h2>Connection</h2>
      <Connection />
      <h2>Checkout sessions</h2>
      <CheckoutSessions />
    </section>
  );
}

function ModeForm({ s }: { s: Schemas['AccountSettings'] }) {
  const [stripeMode, setMode] = useState(s.stripeMode);
  const [success, setSuccess] = useState(s.stripeCheckoutSuccessUrl ?? '');
  const [cancel, setCancel] = useState(s.stripeCheckoutCancelUrl ?? '');
  const save = useSaveAccountSettings();
  const submit = () => save.mutate({ stripeMode, stripeCheckoutSuccessUrl: success.trim() ? success : null, stripeCheckoutCancelUrl: cancel.trim() ? cancel : null });
  return (
    <Form label="Processor settings" layout="grid" submission={save} onSubmit={submit} submit="Save processor settings" failed="Not saved" saved>
      <Field label="Processor mode" name="stripeMode">
        <select value={stripeMode} onChange={(e) => setMode(e.target.value as typeof stripeMode)}>
          {MODES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Return URL after a paid checkout" name="stripeCheckoutSuccessUrl">
        <input value={success} onChange={(e) => setSuccess(e.target.value)} placeholder="this service's address" />
      </Field>
      <Field label="Return URL after a cancelled checkout" name="stripeCheckoutCancelUrl">
        <input value={cancel} onChange={(e) => setCancel(e.target.value)} placeholder="this service's address" />
      </Field>
    </Form>
  );
}

/** "sk_t************0001" → test; "sk_l…" / "rk_l…" → live (the mask keeps the first 4 characters). */
function keyMode(masked: string): string {
  return masked.charAt(3) === 'l' ? 'live' : 'test';
}

function Connection() {
  const connection = useStripeConnection();
  const [key, setKey] = useState('');
  const store = useStoreStripeKey(() => setKey(''));
  return (
    <>
      <QueryView query={connection} what="the processor connection">
        {(c) =>
          !c?.stripeApiKey ? (
            <p className="empty" data-testid="stripe-connection">
              Not connected: no processor key stored.
            </p>
          ) : (
            <p data-testid="stripe-connection">
              Connected in <strong data-testid="stripe-key-mode">{keyMode(c.stripeApiKey)}</strong> mode with key <code>{c.stripeApiKey}</code>; webhook secret{' '}
              {c.webhookSecret ? 'set' : 'not set'}.
            </p>
          )
        }
      </QueryView>
      <Form label="Processor key" submission={store} onSubmit={() => store.mutate(key)} submit="Store key" failed="Key not stored">
        <Field label="Stripe secret key (sk_test_… for test mode, sk_live_… for live)" name="clientStripeApiKey">
          <input type="password" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} />
        </Field>
      </Form>
    </>
  );
}
