import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { withTransaction } from '../../../platform/db/transaction.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { newId } from '../../../platform/ids.js';
import {
  attributeOutcome,
  mergeOutcomeFields,
  newOutcomeFields,
  outcomePatchOf,
  RECENT_OUTCOMES,
  type OutcomeFields,
  type OutcomeRequest,
} from './domain.js';
import * as repo from './repo.js';
import type { OutcomeRow, OutcomeViewRow } from './repo.js';
import { personLevelEnabled } from '../units/repo.js';

/**
 * Outcomes (contract §7.7): posted ones (Admin API and the Client API with a tenant key, source
 * MANUAL) and pulled ones (outcomes/sources/service.ts). Attribution runs on every write, from the stored
 * fields merged with the request, and its result is stored (`spend_unit_id`).
 */

export type OutcomeView = {
  id: string;
  source: OutcomeRow['source'];
  kind: OutcomeRow['kind'];
  externalId: string;
  title: string | null;
  url: string | null;
  actorEmail: string | null;
  actorLogin: string | null;
  spendUnitId: string | null;
  unitName: string | null;
  occurredAt: Date;
  aiAssisted: boolean | null;
  aiTool: string | null;
};

export function toOutcomeView(row: OutcomeViewRow): OutcomeView {
  return {
    id: row.id,
    source: row.source,
    kind: row.kind,
    externalId: row.external_id,
    title: row.title,
    url: row.url,
    actorEmail: row.actor_email,
    actorLogin: row.actor_login,
    spendUnitId: row.spend_unit_id,
    unitName: row.unit_name,
    occurredAt: row.occurred_at,
    aiAssisted: row.ai_assisted,
    aiTool: row.ai_tool,
  };
}

const unitNotFound = (id: string) => notFound(`Spend unit ${id} not found`);

/** The latest 200 outcomes, newest first. */
export async function listRecentOutcomes(ctx: AppContext, accountId: string): Promise<OutcomeView[]> {
  return (await repo.listRecentOutcomes(ctx.db, accountId, RECENT_OUTCOMES)).map(toOutcomeView);
}

/**
 * Posts an outcome (source MANUAL). The same externalId again updates only the fields sent. Runs
 * in one transaction with the outcome row locked, so two posts of one externalId apply one after
 * the other (the loser of a concurrent first insert locks the winner's row and merges into it).
 */
export async function postOutcome(ctx: AppContext, accountId: string, request: OutcomeRequest): Promise<OutcomeView> {
  const patch = outcomePatchOf(request);
  const now = ctx.clock.now();
  const id = await withTransaction(ctx.db, async (tx) => {
    const sentUnit = patch.fields.requestedSpendUnitId;
    if (sentUnit != null && !(await repo.shareLockUnit(tx, accountId, sentUnit))) throw unitNotFound(sentUnit);
    const personLevel = await personLevelEnabled(tx, accountId);
    // A lost insert race is retried once against the winner's row (it is visible once committed).
    for (let attempt = 0; ; attempt += 1) {
      const stored = await repo.lockOutcome(tx, accountId, 'MANUAL', patch.externalId);
      const fields = stored ? mergeOutcomeFields(fieldsOf(stored), patch) : newOutcomeFields(patch, now);
      const unitId = await attributionOf(tx, accountId, fields, personLevel, sentUnit);
      const values = {
        kind: patch.kind,
        title: fields.title,
        url: fields.url,
        actor_email: fields.actorEmail,
        actor_login: fields.actorLogin,
        requested_spend_unit_id: fields.requestedSpendUnitId,
        spend_unit_id: unitId,
        occurred_at: fields.occurredAt,
        ai_assisted: fields.aiAssisted,
        ai_tool: fields.aiTool,
        modified_at: now,
      };
      if (stored) return (await repo.updateOutcome(tx, accountId, stored.id, values)).id;
      const inserted = await repo.insertOutcome(tx, {
        ...values,
        id: newId(now.getTime()),
        account_id: accountId,
        source: 'MANUAL',
        source_id: null,
        external_id: patch.externalId,
        created_at: now,
      });
      if (inserted) return inserted.id;
      if (attempt >= 2) throw new Error(`outcome ${patch.externalId}: insert conflicted but no row is visible`);
    }
  });
  return toOutcomeView((await repo.findOutcomeView(ctx.db, accountId, id))!);
}

/**
 * The attribution order for one posted outcome. The unit it names is share-locked (a concurrent
 * unit delete waits for this transaction); a stored requested unit deleted meanwhile counts as none.
 */
async function attributionOf(tx: Executor, accountId: string, fields: OutcomeFields, personLevel: boolean, alreadyLocked: string | null | undefined) {
  const persons = personLevel ? await repo.findPersonCandidates(tx, accountId, fields.actorEmail, fields.actorLogin) : [];
  let requested = fields.requestedSpendUnitId;
  if (requested !== null && requested !== alreadyLocked && !(await repo.shareLockUnit(tx, accountId, requested))) requested = null;
  fields.requestedSpendUnitId = requested;
  return attributeOutcome({ actorEmail: fields.actorEmail, actorLogin: fields.actorLogin, requestedSpendUnitId: requested, sourceDefaultUnitId: null }, persons, personLevel);
}

function fieldsOf(row: OutcomeRow): OutcomeFields {
  return {
    title: row.title,
    url: row.url,
    actorEmail: row.actor_email,
    actorLogin: row.actor_login,
    requestedSpendUnitId: row.requested_spend_unit_id,
    occurredAt: row.occurred_at,
    aiAssisted: row.ai_assisted,
    aiTool: row.ai_tool,
  };
}
