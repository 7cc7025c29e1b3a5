import { jwtVerify, SignJWT } from 'jose';

export const JWT_TTL_SECONDS = 2 * 60 * 60;
const ISSUER = 'tanso-core';

/** `sessionVersion` is the user's session version at login (claim `ver`); a password change bumps it. */
export type AdminClaims = { userId: string; accountId: string; username: string; role: string; sessionVersion: number };

export async function signAdminToken(
  secret: string,
  claims: AdminClaims,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const expiresAt = new Date((issuedAt + JWT_TTL_SECONDS) * 1000);
  const token = await new SignJWT({ account_id: claims.accountId, email: claims.username, role: claims.role, scope: 'ui', ver: claims.sessionVersion })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuer(ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + JWT_TTL_SECONDS)
    .sign(new TextEncoder().encode(secret));
  return { token, expiresAt };
}

/** Verifies signature, issuer and expiry against the given clock; null when the token is not valid. */
export async function verifyAdminToken(secret: string, token: string, now: Date): Promise<AdminClaims | null> {
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      issuer: ISSUER,
      algorithms: ['HS256'],
      currentDate: now,
    });
    if (typeof payload.sub !== 'string' || typeof payload.account_id !== 'string') return null;
    return {
      userId: payload.sub,
      accountId: payload.account_id,
      username: String(payload.email ?? ''),
      role: String(payload.role ?? 'ADMIN'),
      // Tokens issued before versions existed carry none: version 0, ended by the first change.
      sessionVersion: typeof payload.ver === 'number' ? payload.ver : 0,
    };
  } catch {
    return null;
  }
}
