import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { setToken, setUnauthorizedHandler } from './api';
import { paths } from './routes';

type Session = { token: string; username: string; /** Local clock time (ms) at which the JWT expires. */ endsAtMs: number };
type SignOutReason = 'signed-out' | 'expired';

type Auth = {
  session: Session | null;
  /** Why the last session ended (the login page says so when it expired). */
  endedBy: SignOutReason | null;
  signIn(session: Session): void;
  signOut(reason: SignOutReason): void;
};

const AuthContext = createContext<Auth | null>(null);

/**
 * The admin session, in memory only. It ends at the JWT's expiresAt (2 hours after login) or at
 * the first 401, either way with a return to the login page that comes back to the same page.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [endedBy, setEndedBy] = useState<SignOutReason | null>(null);
  const queryClient = useQueryClient();

  // The page that was open is where RequireAuth sends the user back to after the next login.
  const signOut = useCallback(
    (reason: SignOutReason) => {
      setToken(null);
      setSession(null);
      setEndedBy(reason);
      queryClient.clear();
    },
    [queryClient],
  );

  const signIn = useCallback((next: Session) => {
    setToken(next.token);
    setSession(next);
    setEndedBy(null);
  }, []);

  useEffect(() => setUnauthorizedHandler(() => signOut('expired')), [signOut]);

  useEffect(() => {
    if (!session) return;
    const remainingMs = session.endsAtMs - Date.now();
    // setTimeout holds at most ~24.8 days; a JWT lives 2 hours.
    const timer = setTimeout(() => signOut('expired'), Math.max(0, Math.min(remainingMs, 2 ** 31 - 1)));
    return () => clearTimeout(timer);
  }, [session, signOut]);

  const value = useMemo(() => ({ session, endedBy, signIn, signOut }), [session, endedBy, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/**
 * When a JWT ends on this browser's clock: its lifetime (exp − iat, 2 hours) counted from now, so a
 * browser clock that differs from the server's neither ends the session early nor keeps it late.
 */
export function sessionEndOf(token: string, expiresAt: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { iat?: number; exp?: number };
    if (typeof payload.iat === 'number' && typeof payload.exp === 'number') return Date.now() + (payload.exp - payload.iat) * 1000;
  } catch {
    // not a JWT we can read: fall back to the server's expiresAt
  }
  return Date.parse(expiresAt);
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** Renders its children when signed in; otherwise sends the user to the login page and back. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { session, endedBy } = useAuth();
  const location = useLocation();
  if (!session) {
    const params = new URLSearchParams({ next: location.pathname + location.search, ...(endedBy === 'expired' ? { expired: '1' } : {}) });
    return <Navigate to={paths.login(params)} replace />;
  }
  return children;
}
