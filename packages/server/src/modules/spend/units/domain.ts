import { invalid, invalidField } from '../../../platform/errors/app-error.js';
import type { SpendUnitType } from '../tables.js';

/**
 * Spend units and attribution rules (contract §7.4): the checks with the contract's messages, and
 * the parent-loop rule, as pure functions.
 */
export const MAX_UNIT_NAME = 120;
export const MAX_UNIT_EMAIL = 255;
export const MAX_GITHUB_LOGIN = 120;
export const MAX_MATCH_VALUE = 255;
export const DEFAULT_RULE_PRIORITY = 100;

export const PERSON_LEVEL_OFF =
  'Person-level attribution is off for this account. Turn it on under Spend settings (after telling staff) to add people.';

export type UnitRequest = {
  type: SpendUnitType;
  name: string;
  email?: string | null | undefined;
  githubLogin?: string | null | undefined;
  parentId?: string | null | undefined;
  featureId?: string | null | undefined;
};

export type UnitValues = {
  type: SpendUnitType;
  name: string;
  email: string | null;
  githubLogin: string | null;
  parentId: string | null;
  featureId: string | null;
};

const blankToNull = (v: string | null | undefined) => {
  const t = v?.trim();
  return t ? t : null;
};

/**
 * A unit request (create, or PUT as a full replace) → the values to store. PERSON needs person-level
 * attribution on; e-mail and login belong to PERSON units, a feature to PROJECT units.
 */
export function unitValues(request: UnitRequest, personLevelEnabled: boolean): UnitValues {
  const name = request.name.trim();
  if (name === '') throw invalidField('name', 'must not be blank');
  if (name.length > MAX_UNIT_NAME) throw invalidField('name', `must be at most ${MAX_UNIT_NAME} characters`);
  if (request.type === 'PERSON' && !personLevelEnabled) throw invalid(PERSON_LEVEL_OFF);
  const email = blankToNull(request.email)?.toLowerCase() ?? null;
  const githubLogin = blankToNull(request.githubLogin);
  if (request.type !== 'PERSON') {
    if (email !== null) throw invalidField('email', 'only PERSON units carry an e-mail');
    if (githubLogin !== null) throw invalidField('githubLogin', 'only PERSON units carry a GitHub login');
  }
  if (email !== null && email.length > MAX_UNIT_EMAIL) throw invalidField('email', `must be at most ${MAX_UNIT_EMAIL} characters`);
  if (githubLogin !== null && githubLogin.length > MAX_GITHUB_LOGIN) throw invalidField('githubLogin', `must be at most ${MAX_GITHUB_LOGIN} characters`);
  const featureId = request.featureId ?? null;
  if (featureId !== null && request.type !== 'PROJECT') throw invalidField('featureId', 'only PROJECT units link a feature');
  return { type: request.type, name, email, githubLogin, parentId: request.parentId ?? null, featureId };
}

/**
 * Refuses a parent that is the unit itself or one of its descendants. `parentOf` maps each unit of
 * the account to its parent (as stored, before the change).
 */
export function checkParent(unit: { id: string; name: string } | null, parentId: string | null, parentOf: ReadonlyMap<string, string | null>): void {
  if (parentId === null || unit === null) return;
  if (parentId === unit.id) throw invalid('A unit cannot be its own parent');
  const seen = new Set<string>();
  for (let at: string | null = parentId; at !== null && !seen.has(at); at = parentOf.get(at) ?? null) {
    if (at === unit.id) throw invalid(`That would make ${unit.name} an ancestor of itself`);
    seen.add(at);
  }
}

/** A rule's match value: trimmed, non-empty, at most 255 characters; compared exactly when matching. */
export function matchValueOf(raw: string): string {
  const value = raw.trim();
  if (value === '') throw invalidField('matchValue', 'must not be blank');
  if (value.length > MAX_MATCH_VALUE) throw invalidField('matchValue', `must be at most ${MAX_MATCH_VALUE} characters`);
  return value;
}

export const duplicateRuleMessage = (unitName: string) => `That rule already exists on ${unitName}`;
