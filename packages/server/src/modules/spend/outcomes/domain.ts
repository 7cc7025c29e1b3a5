import type { SpendOutcomeKind } from '../tables.js';
import { invalidField } from '../../../platform/errors/app-error.js';

/**
 * Outcome rules (contract §7.7), pure: the request's field rules, "posting the same externalId
 * again updates only the fields sent", and the attribution order.
 */
export const MAX_EXTERNAL_ID = 255;
export const MAX_TITLE = 500;
export const MAX_URL = 1000;
export const MAX_ACTOR = 255;
export const MAX_AI_TOOL = 64;
/** GET /outcomes: the latest this many, newest first (spec §8 "Recent outcomes list"). */
export const RECENT_OUTCOMES = 200;

/**
 * An outcome request as parsed. A field that is absent or null was not sent (as in §7.3: a null
 * leaves the stored value alone); a blank text field ("") clears the stored value.
 */
export type OutcomeRequest = {
  kind: SpendOutcomeKind;
  externalId: string;
  title?: string | null | undefined;
  url?: string | null | undefined;
  actorEmail?: string | null | undefined;
  actorLogin?: string | null | undefined;
  spendUnitId?: string | null | undefined;
  occurredAt?: Date | null | undefined;
  aiAssisted?: boolean | null | undefined;
  aiTool?: string | null | undefined;
};

/** The stored fields an outcome write may set; a key is present only when the request sent it. */
export type OutcomeFields = {
  title: string | null;
  url: string | null;
  actorEmail: string | null;
  actorLogin: string | null;
  requestedSpendUnitId: string | null;
  occurredAt: Date;
  aiAssisted: boolean | null;
  aiTool: string | null;
};

export type OutcomePatch = { kind: SpendOutcomeKind; externalId: string; fields: Partial<OutcomeFields> };

function text(field: string, value: string | null | undefined, max: number, into: Partial<Record<string, string | null>>, key: string) {
  if (value === undefined || value === null) return;
  const trimmed = value.trim();
  if (trimmed.length > max) throw invalidField(field, `must be at most ${max} characters`);
  into[key] = trimmed === '' ? null : trimmed;
}

/** The request checked (lengths after trimming) and reduced to the fields it sent. */
export function outcomePatchOf(request: OutcomeRequest): OutcomePatch {
  const externalId = request.externalId.trim();
  if (externalId === '') throw invalidField('externalId', 'must not be blank');
  if (externalId.length > MAX_EXTERNAL_ID) throw invalidField('externalId', `must be at most ${MAX_EXTERNAL_ID} characters`);
  const texts: Partial<Record<string, string | null>> = {};
  text('title', request.title, MAX_TITLE, texts, 'title');
  text('url', request.url, MAX_URL, texts, 'url');
  text('actorEmail', request.actorEmail, MAX_ACTOR, texts, 'actorEmail');
  text('actorLogin', request.actorLogin, MAX_ACTOR, texts, 'actorLogin');
  text('aiTool', request.aiTool, MAX_AI_TOOL, texts, 'aiTool');
  const fields: Partial<OutcomeFields> = { ...texts };
  // E-mail is compared case-insensitively (unit e-mails are stored lower-cased too).
  if (typeof fields.actorEmail === 'string') fields.actorEmail = fields.actorEmail.toLowerCase();
  if (request.spendUnitId != null) fields.requestedSpendUnitId = request.spendUnitId;
  if (request.occurredAt != null) fields.occurredAt = request.occurredAt;
  if (request.aiAssisted != null) fields.aiAssisted = request.aiAssisted;
  return { kind: request.kind, externalId, fields };
}

/** A new outcome's fields: what was sent, the rest empty, occurredAt defaulting to now. */
export function newOutcomeFields(patch: OutcomePatch, now: Date): OutcomeFields {
  return {
    title: null,
    url: null,
    actorEmail: null,
    actorLogin: null,
    requestedSpendUnitId: null,
    aiAssisted: null,
    aiTool: null,
    occurredAt: now,
    ...patch.fields,
  };
}

/** An existing outcome's fields with only the sent ones replaced. */
export function mergeOutcomeFields(stored: OutcomeFields, patch: OutcomePatch): OutcomeFields {
  return { ...stored, ...patch.fields };
}

/** A PERSON unit that may match an outcome's actor (e-mail lower-cased as stored). */
export type PersonCandidate = { id: string; email: string | null; githubLogin: string | null };

export type AttributionInput = {
  actorEmail: string | null;
  actorLogin: string | null;
  requestedSpendUnitId: string | null;
  /** The pulling source's default unit; null for posted outcomes. */
  sourceDefaultUnitId: string | null;
};

/**
 * The attribution order (contract §7.7): 1. the PERSON unit whose e-mail or GitHub login matches,
 * when person level is on (an e-mail match before a login match; logins compare case-insensitively,
 * as GitHub's do; among equals the first candidate, which callers pass oldest first); 2. else the
 * sent spendUnitId; 3. else the source's default unit; 4. else unattributed (null).
 */
export function attributeOutcome(input: AttributionInput, persons: readonly PersonCandidate[], personLevelEnabled: boolean): string | null {
  if (personLevelEnabled) {
    const email = input.actorEmail?.toLowerCase() ?? null;
    const login = input.actorLogin?.toLowerCase() ?? null;
    const byEmail = email === null ? undefined : persons.find((p) => p.email !== null && p.email.toLowerCase() === email);
    const byLogin = login === null ? undefined : persons.find((p) => p.githubLogin !== null && p.githubLogin.toLowerCase() === login);
    const person = byEmail ?? byLogin;
    if (person) return person.id;
  }
  return input.requestedSpendUnitId ?? input.sourceDefaultUnitId ?? null;
}
