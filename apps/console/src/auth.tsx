import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { api, setCsrfToken, setUnauthorizedHandler, unwrap, type Schemas } from './api';
import { neededRoles, roleAllows, type OperatorAccess } from './roles';
import { paths } from './routes';

export type Session = {
  username: string;
  role: Schemas['OperatorSession']['user']['role'];
  csrfToken: string;
  /** Local clock time (ms) at which the session ends. */
  endsAtMs: number;
};
/** Why the last session ended: signed out here, expired (or ended elsewhere), or this operator's password changed. */
type SignOutReason = 'signed-out' | 'expired' | 'password-changed';

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
    const ended: Record<string, string> = endedBy === 'expired' ? { expired: '1' } : endedBy === 'password-changed' ? { password: 'changed' } : {};
    const params = new URLSearchParams({ next: location.pathname + location.search, ...ended });
    return <Navigate to={paths.login(params)} replace />;
  }
  return children;
}

/** What changing things on the current page needs (its route's `change`); null outside the shell (the portal). */
const ChangeAccessContext = createContext<OperatorAccess | null>(null);
export const ChangeAccess = ChangeAccessContext.Provider;

export type Can = { allowed: boolean; why: string | undefined };

/**
 * Whether the signed-in operator's role grants `access` (roles.ts, the server's table by area), and
 * if not, why ("Needs the OWNER or ADMIN role") for the title of the hidden or disabled control.
 * Without `access`: what changing things on the current page needs (the route table's `change`).
 * Convenience only: the server refuses with 403 whatever the console shows.
 */
export function useCan(access?: OperatorAccess): Can {
  const pageAccess = useContext(ChangeAccessContext);
  const role = useContext(AuthContext)?.session?.role;
  const needed = access ?? pageAccess;
  if (needed === null || (role !== undefined && roleAllows(role, needed))) return { allowed: true, why: undefined };
  return { allowed: false, why: neededRoles(needed) };
}
