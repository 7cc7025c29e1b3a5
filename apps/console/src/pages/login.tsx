import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api';
import { paths } from '../routes';
import { useAuth } from '../auth';
import { useConsoleInfo } from '../queries/account';
import { ThemeSelect } from '../theme';
import { ErrorNote } from '../components/ui';

/** Only a path of this console: `next` never sends the user to another origin. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : paths.home;
}

export function LoginPage() {
  const { session, ready, signIn } = useAuth();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const info = useConsoleInfo();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));

  if (session) return <Navigate to={next} replace />;
  if (!ready) return <p className="muted" role="status">Loading…</p>;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      signIn(await unwrap(api.POST('/public/v1/sessions', { body: { username, password } })));
      navigate(next, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <form onSubmit={submit} className="card" aria-labelledby="login-title">
        <h1 id="login-title">Sign in to Tally</h1>
        {params.get('password') === 'changed' ? (
          <p role="status" className="notice">
            Password changed: sign in with the new password.
          </p>
        ) : params.get('expired') ? (
          <p role="status" className="notice">
            Your session ended. Sign in again to continue.
          </p>
        ) : null}
        <label>
          Username
          <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {info.data?.devLogin ? (
          <p className="muted dev-hint">
            Dev install: <code>npm start</code> seeds a dev account and prints its login in the server log (
            <q>Seeded the dev account…</q>): <code>admin</code> / <code>admin</code> unless <code>DEV_SEED_USERNAME</code> /{' '}
            <code>DEV_SEED_PASSWORD</code> are set.
          </p>
        ) : null}
      </form>
      <ThemeSelect />
    </main>
  );
}
