import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api';
import { ErrorNote, Loading, PageHeader, QueryView } from '../ui';

/**
 * The payment processor: its mode and whether it is enabled (account settings), and the stored
 * connection (the key and webhook secret as the API masks them). Checkout sessions have no list
 * route yet: each is read by id from the Client API.
 */
export default function PaymentsPage() {
  const settings = useQuery({ queryKey: ['account-settings'], queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
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
  return (
    <section>
      <PageHeader title="Payments" />
      <QueryView query={settings} what="payment settings">
        {(s) => (
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
        )}
      </QueryView>
      <h2>Connection</h2>
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
          Connected with key <code>{connection.data.stripeApiKey}</code>; webhook secret {connection.data.webhookSecret ? 'set' : 'not set'}.
        </p>
      )}
      <h2>Checkout sessions</h2>
      <p className="muted">
        Sessions are created per purchase and read by id (<code>GET /api/v1/client/checkout-sessions/{'{id}'}</code>); the Admin API has no list of them yet.
      </p>
    </section>
  );
}
