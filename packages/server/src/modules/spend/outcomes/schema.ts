import { z } from 'zod';
import { MAX_ACTOR, MAX_AI_TOOL, MAX_EXTERNAL_ID, MAX_TITLE, MAX_URL } from './domain.js';

// Lengths are checked after trimming in outcomes/domain.ts (with their messages); the schema states them.
const text = (max: number, description: string) => z.string().max(4 * max).nullish().meta({ maxLength: max, description });
const UNSENT = 'Absent or null: not sent (an update leaves it alone); "" clears it.';

export const OUTCOME_KINDS = ['PR_MERGED', 'ISSUE_DONE', 'CUSTOM'] as const;

const timestampInput = z.iso
  .datetime({ offset: true, error: (issue) => (issue.input === undefined ? undefined : 'must be an ISO-8601 timestamp such as 2026-09-01T00:00:00Z') })
  .transform((s) => new Date(s));

export const OutcomeRequestSchema = z.object({
  kind: z.enum(OUTCOME_KINDS),
  externalId: z.string().max(4 * MAX_EXTERNAL_ID).meta({ maxLength: MAX_EXTERNAL_ID, description: `Required, at most ${MAX_EXTERNAL_ID} characters (trimmed). Unique among this account's posted outcomes: posting it again updates only the fields sent.` }),
  title: text(MAX_TITLE, UNSENT),
  url: text(MAX_URL, UNSENT),
  actorEmail: text(MAX_ACTOR, `Lower-cased; matched against PERSON units' e-mail. ${UNSENT}`),
  actorLogin: text(MAX_ACTOR, `Matched (case-insensitively) against PERSON units' GitHub login. ${UNSENT}`),
  spendUnitId: z.uuid().nullish().describe('A unit of this account (404 otherwise); used when no PERSON unit matches the actor. Absent or null: not sent.'),
  occurredAt: timestampInput.nullish().describe('Default now (on create). Absent or null: not sent.'),
  aiAssisted: z.boolean().nullish().describe('Absent or null: not sent.'),
  aiTool: text(MAX_AI_TOOL, UNSENT),
});

export const OutcomeSchema = z
  .object({
    id: z.uuid(),
    source: z.enum(['GITHUB', 'LINEAR', 'MANUAL']).describe('MANUAL: posted'),
    kind: z.enum(OUTCOME_KINDS),
    externalId: z.string(),
    title: z.string().nullable(),
    url: z.string().nullable(),
    actorEmail: z.string().nullable(),
    actorLogin: z.string().nullable(),
    spendUnitId: z.uuid().nullable().describe('The unit the attribution order chose on the last write; null: unattributed'),
    unitName: z.string().nullable(),
    occurredAt: z.date(),
    aiAssisted: z.boolean().nullable(),
    aiTool: z.string().nullable(),
  })
  .meta({ id: 'SpendOutcome' });

export const OUTCOME_POST_DESCRIPTION =
  'Posted outcomes have source MANUAL. Posting the same externalId again updates only the fields sent and answers 201 with the updated outcome. ' +
  'Attribution on every write: the PERSON unit whose e-mail or GitHub login matches the actor (when person-level attribution is on), else spendUnitId, else unattributed.';
