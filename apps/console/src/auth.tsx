import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { api, setCsrfToken, setUnauthorizedHandler, unwrap, type Schemas } from './api';
import { paths } from './routes';

export type Session = {
  username: string;
  role: Schemas['OperatorSession']['user']['role'];
  csrfToken: string;
  /** Local clock time (ms) at which the session ends. */
  endsAtMs: number;
};
type SignOutReason = 'signed-out' | 'expired';

type Auth = {
  session: Session | null;
  /** False until the first `GET /api/v1/session` has answered (a reload asks the server, not memory). */
  ready: boolean;
  /** Why the last session ended (the login page says so when it expired). */
  endedBy: SignOutReason | null;
  signIn(session: Schemas['OperatorSession']): void;
  signOut(reason: SignOutReason): void;
};

const AuthContext = createContext<Auth | null>(null);

/** When a session ends on this browser's clock: the seconds the server says are left, counted from now. */
function toSession(s: Schemas['OperatorSession']): Session {
  const leftMs = (s.expiresInSeconds ?? 2 * 60 * 60) * 1000;
  return { username: s.user.username, role: s.user.role, csrfToken: s.csrfToken ?? '', endsAtMs: Date.now() + leftMs };
}

/**
 * The operator's console session (ADR 0034): an HttpOnly cookie the server set at sign-in, so a
 * reload or a new tab asks `GET /api/v1/session` and carries on. It ends at its expiry (2 hours
 * after sign-in), at sign-out (ended on the server too) or at the first 401, with a return to the
 * login page that comes back to the same page.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [ready, setReady] = useState(false);
  const [endedBy, setEndedBy] = useState<SignOutReason | null>(null);
  const queryClient = useQueryClient();

  const clear = useCallback(
    (reason: SignOutReason) => {
      setCsrfToken(null);
      setSession(null);
      setEndedBy(reason);
      queryClient.clear();
    },
    [queryClient],
  );

  const signOut = useCallback(
    (reason: SignOutReason) => {
      // Ended on the server first, so the cookie is worth nothing even if it were copied.
      if (reason === 'signed-out') void api.DELETE('/api/v1/session').finally(() => clear(reason));
      else clear(reason);
    },
    [clear],
  );

  const signIn = useCallback((next: Schemas['OperatorSession']) => {
    const s = toSession(next);
    setCsrfToken(s.csrfToken);
    setSession(s);
    setEndedBy(null);
  }, []);

  useEffect(() => setUnauthorizedHandler(() => clear('expired')), [clear]);

  // A reload or a new tab: the cookie (if any) says who is signed in.
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v1/session')
      .then(async (answer) => {
        if (!live || !answer.response.ok) return;
        const current = await unwrap(Promise.resolve(answer));
        const s = toSession(current);
        setCsrfToken(s.csrfToken);
        setSession(s);
      })
      .catch(() => undefined)
      .finally(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    if (!session) return;
    const remainingMs = session.endsAtMs - Date.now();
    // setTimeout holds at most ~24.8 days; a session lives 2 hours.
    const timer = setTimeout(() => clear('expired'), Math.max(0, Math.min(remainingMs, 2 ** 31 - 1)));
    return () => clearTimeout(timer);
  }, [session, clear]);

  const value = useMemo(() => ({ session, ready, endedBy, signIn, signOut }), [session, ready, endedBy, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** Renders its children when signed in; otherwise sends the user to the login page and back. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { session, ready, endedBy } = useAuth();
  const location = useLocation();
  if (!ready) return <p className="muted" role="status">Loading…</p>;
  if (!session) {
    const params = new URLSearchParams({ next: location.pathname + location.search, ...(endedBy === 'expired' ? { expired: '1' } : {}) });
    return <Navigate to={paths.login(params)} replace />;
  }
  return children;
}
