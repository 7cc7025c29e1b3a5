import { sql, type Insertable, type Updateable } from 'kysely';
import type { Executor } from '../../../platform/db/database.js';
import type { OutcomeRow, SpendOutcomeSourceName, SpendOutcomesTable } from '../tables.js';
import type { PersonCandidate } from './domain.js';
import { hasRow, tenantRows } from '../../../platform/db/tenant-row.js';

export type { OutcomeRow } from '../tables.js';
/** An outcome with the name of the unit it is attributed to. */
export type OutcomeViewRow = OutcomeRow & { unit_name: string | null };

/** Multi-row upserts stay far below PostgreSQL's 65,535 parameters per statement (17 per row). */
const ROWS_PER_STATEMENT = 500;

/**
 * PERSON units whose e-mail or GitHub login matches, oldest first (the attribution order's first
 * step). Logins compare case-insensitively; unit e-mails are stored lower-cased. The rows are
 * share-locked until the transaction ends, so the unit chosen cannot be deleted under the write.
 */
export function findPersonCandidates(db: Executor, accountId: string, email: string | null, login: string | null): Promise<PersonCandidate[]> {
  if (email === null && login === null) return Promise.resolve([]);
  return db
    .selectFrom('spend_units')
    .select(['id', 'email', 'github_login as githubLogin'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'PERSON')
    .where((eb) => eb.or([...(email === null ? [] : [eb('email', '=', email)]), ...(login === null ? [] : [eb(sql<string>`lower(github_login)`, '=', login.toLowerCase())])]))
    .orderBy('created_at')
    .orderBy('id')
    .forShare()
    .execute();
}

/** Every PERSON unit with an e-mail or login, oldest first, share-locked (a sync attributes many outcomes at once). */
export function listPersonCandidates(db: Executor, accountId: string): Promise<PersonCandidate[]> {
  return db
    .selectFrom('spend_units')
    .select(['id', 'email', 'github_login as githubLogin'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'PERSON')
    .where((eb) => eb.or([eb('email', 'is not', null), eb('github_login', 'is not', null)]))
    .orderBy('created_at')
    .orderBy('id')
    .forShare()
    .execute();
}

/**
 * True when the unit exists; it is then share-locked until the transaction ends, so a concurrent
 * unit delete waits and the outcome's reference to it stays valid.
 */
export async function shareLockUnit(db: Executor, accountId: string, id: string): Promise<boolean> {
  return hasRow(db.selectFrom('spend_units').select('id').where('account_id', '=', accountId).where('id', '=', id).forShare());
}

export function lockOutcome(db: Executor, accountId: string, source: SpendOutcomeSourceName, externalId: string): Promise<OutcomeRow | undefined> {
  return tenantRows(db, 'spend_outcomes', accountId)
    .where('source', '=', source)
    .where('external_id', '=', externalId)
    .forUpdate()
    .executeTakeFirst();
}

/** Inserts the outcome; undefined when the (account, source, externalId) exists already. */
export function insertOutcome(db: Executor, row: Insertable<SpendOutcomesTable>): Promise<OutcomeRow | undefined> {
  return db
    .insertInto('spend_outcomes')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'source', 'external_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function updateOutcome(db: Executor, accountId: string, id: string, values: Updateable<SpendOutcomesTable>): Promise<OutcomeRow> {
  return db.updateTable('spend_outcomes').set(values).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Pulled outcomes: inserted, or (same source and externalId) rewritten with what the source says
 * now. The pulling source takes the outcome over: two sources covering one repository hold each
 * pull request once, owned by the source that pulled it last.
 */
export async function upsertPulledOutcomes(db: Executor, rows: Insertable<SpendOutcomesTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await db
      .insertInto('spend_outcomes')
      .values(rows.slice(i, i + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['account_id', 'source', 'external_id']).doUpdateSet((eb) => ({
          source_id: eb.ref('excluded.source_id'),
          kind: eb.ref('excluded.kind'),
          title: eb.ref('excluded.title'),
          url: eb.ref('excluded.url'),
          actor_login: eb.ref('excluded.actor_login'),
          spend_unit_id: eb.ref('excluded.spend_unit_id'),
          occurred_at: eb.ref('excluded.occurred_at'),
          modified_at: eb.ref('excluded.modified_at'),
        })),
      )
      .execute();
  }
}

function outcomeViews(db: Executor, accountId: string) {
  return db
    .selectFrom('spend_outcomes as o')
    .leftJoin('spend_units as u', (join) => join.onRef('u.account_id', '=', 'o.account_id').onRef('u.id', '=', 'o.spend_unit_id'))
    .selectAll('o')
    .select('u.name as unit_name')
    .where('o.account_id', '=', accountId);
}

export function findOutcomeView(db: Executor, accountId: string, id: string): Promise<OutcomeViewRow | undefined> {
  return outcomeViews(db, accountId).where('o.id', '=', id).executeTakeFirst();
}

/** The latest `limit` outcomes, newest first (ties: the later id first). */
export function listRecentOutcomes(db: Executor, accountId: string, limit: number): Promise<OutcomeViewRow[]> {
  return outcomeViews(db, accountId).orderBy('o.occurred_at', 'desc').orderBy('o.id', 'desc').limit(limit).execute();
}
