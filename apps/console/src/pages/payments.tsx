import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api';
import { ErrorNote, Loading, PageHeader, QueryView } from '../ui';
import { CheckoutSessions } from './payments-checkouts';

const MODES = [
  ['NONE', 'None: no processor (disabled)'],
  ['PAYMENT_PASS_THROUGH', 'Pass-through: Tally bills, the processor charges'],
  ['PROCESSOR_INTEGRATION', 'Processor integration: the processor drives subscriptions'],
] as const;

/** A field's messages from the error envelope, shown under the field. */
function fieldMessages(error: unknown, field: string): string[] {
  return error instanceof ApiError ? error.fields.filter((f) => f.field === field).map((f) => f.message) : [];
}

function Field({ label, error, name, children }: { label: string; error: unknown; name: string; children: ReactNode }) {
  return (
    <label>
      {label}
      {children}
      {fieldMessages(error, name).map((m) => (
        <span key={m} className="field-error" role="alert">
          {m}
        </span>
      ))}
    </label>
  );
}

/** The error shown above the button when no field of the form carries it. */
function generalError(error: unknown, fields: string[]): unknown {
  if (!error) return null;
  return error instanceof ApiError && error.fields.some((f) => fields.includes(f.field)) ? null : error;
}

/**
 * The payment processor: its mode (NONE disables it) and return URLs (account settings, each
 * validation message inline), the stored connection and its key's mode (test or live, replaced by
 * storing another key), and the account's hosted checkout sessions.
 */
export default function PaymentsPage() {
  const settings = useQuery({ queryKey: ['account-settings'], queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
  return (
    <section>
      <PageHeader title="Payments" />
      <QueryView query={settings} what="payment settings">
        {(s) => (
          <>
            <dl className="stats">
              <div className="stat">
                <dt>Mode</dt>
                <dd data-testid="stripe-mode">{s.stripeMode}</dd>
              </div>
              <div className="stat">
                <dt>Processor</dt>
                <dd data-testid="stripe-enabled">{s.stripeEnabled ? 'enabled' : 'disabled'}</dd>
              </div>
              <div className="stat">
                <dt>Currency</dt>
                <dd>{s.currency}</dd>
              </div>
            </dl>
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
  const queryClient = useQueryClient();
  const [stripeMode, setMode] = useState(s.stripeMode);
  const [success, setSuccess] = useState(s.stripeCheckoutSuccessUrl ?? '');
  const [cancel, setCancel] = useState(s.stripeCheckoutCancelUrl ?? '');
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/tanso/account-settings', {
          body: { stripeMode, stripeCheckoutSuccessUrl: success.trim() ? success : null, stripeCheckoutCancelUrl: cancel.trim() ? cancel : null },
        }),
      ),
    onSuccess: (next) => queryClient.setQueryData(['account-settings'], next),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  const other = generalError(save.error, ['stripeMode', 'stripeCheckoutSuccessUrl', 'stripeCheckoutCancelUrl']);
  return (
    <form className="form-grid card" onSubmit={submit} aria-label="Processor settings">
      <Field label="Processor mode" error={save.error} name="stripeMode">
        <select value={stripeMode} onChange={(e) => setMode(e.target.value as typeof stripeMode)}>
          {MODES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Return URL after a paid checkout" error={save.error} name="stripeCheckoutSuccessUrl">
        <input value={success} onChange={(e) => setSuccess(e.target.value)} placeholder="this service's address" />
      </Field>
      <Field label="Return URL after a cancelled checkout" error={save.error} name="stripeCheckoutCancelUrl">
        <input value={cancel} onChange={(e) => setCancel(e.target.value)} placeholder="this service's address" />
      </Field>
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          Save processor settings
        </button>
        {save.isSuccess ? <span role="status">Saved.</span> : null}
      </div>
      {other ? <ErrorNote error={other} title="Not saved" /> : null}
    </form>
  );
}

/** "sk_t************0001" → test; "sk_l…" / "rk_l…" → live (the mask keeps the first 4 characters). */
function keyMode(masked: string): string {
  return masked.charAt(3) === 'l' ? 'live' : 'test';
}

function Connection() {
  const queryClient = useQueryClient();
  const connection = useQuery({
    queryKey: ['stripe-connection'],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/v1/data/stripe/api'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  const [key, setKey] = useState('');
  const store = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/data/stripe/api', { body: { clientStripeApiKey: key } }) as Promise<{ data?: { data?: undefined }; response: Response }>),
    onSuccess: () => {
      setKey('');
      void queryClient.invalidateQueries({ queryKey: ['stripe-connection'] });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    store.mutate();
  }
  const other = generalError(store.error, ['clientStripeApiKey']);
  return (
    <>
      {connection.isPending ? (
        <Loading what="the processor connection" />
      ) : connection.error ? (
        <ErrorNote error={connection.error} title="Could not load the connection" />
      ) : !connection.data || !connection.data.stripeApiKey ? (
        <p className="empty" data-testid="stripe-connection">
          Not connected: no processor key stored.
        </p>
      ) : (
        <p data-testid="stripe-connection">
          Connected in <strong data-testid="stripe-key-mode">{keyMode(connection.data.stripeApiKey)}</strong> mode with key{' '}
          <code>{connection.data.stripeApiKey}</code>; webhook secret {connection.data.webhookSecret ? 'set' : 'not set'}.
        </p>
      )}
      <form className="inline-form" onSubmit={submit} aria-label="Processor key">
        <Field label="Stripe secret key (sk_test_… for test mode, sk_live_… for live)" error={store.error} name="clientStripeApiKey">
          <input type="password" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} />
        </Field>
        <button type="submit" disabled={store.isPending}>
          Store key
        </button>
        {other ? <ErrorNote error={other} title="Key not stored" /> : null}
      </form>
    </>
  );
}
