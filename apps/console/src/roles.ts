/**
 * What an operator's role may do, mirroring the server's table by area
 * (packages/server/src/platform/http/operator-access.ts, ADR 0034):
 *   - `read`: looking, and the operator's own password;
 *   - `billing`: customers, subscriptions, invoices, credit pools and grants, portal links;
 *   - `admin`: the catalog (features, plans, rules, credit models, prices, weights), keys, settings,
 *     payments, events, the AI spend side;
 *   - `owner`: operators (users).
 * The console only hides or disables what a role cannot do; the server stays the authority (a 403
 * still shows its message). Data only: the browser tests read it in Node.
 */
export type OperatorRole = 'OWNER' | 'ADMIN' | 'BILLING' | 'VIEWER';
export type OperatorAccess = 'read' | 'billing' | 'admin' | 'owner';

export const OPERATOR_ROLES: readonly OperatorRole[] = ['OWNER', 'ADMIN', 'BILLING', 'VIEWER'];

const GRANTS: Record<OperatorRole, readonly OperatorAccess[]> = {
  OWNER: ['read', 'billing', 'admin', 'owner'],
  ADMIN: ['read', 'billing', 'admin'],
  BILLING: ['read', 'billing'],
  VIEWER: ['read'],
};

export function roleAllows(role: OperatorRole, access: OperatorAccess): boolean {
  return GRANTS[role].includes(access);
}

/** Why a role is refused: "Needs the OWNER or ADMIN role" (the roles granting `access`, strongest first). */
export function neededRoles(access: OperatorAccess): string {
  const roles = OPERATOR_ROLES.filter((role) => roleAllows(role, access));
  const list = roles.length > 1 ? `${roles.slice(0, -1).join(', ')} or ${roles.at(-1)}` : roles[0];
  return `Needs the ${list} role`;
}

/** A move down: the new role grants less than the old one (asked for confirmation first). */
export function isDemotion(from: OperatorRole, to: OperatorRole): boolean {
  return GRANTS[to].length < GRANTS[from].length;
}
