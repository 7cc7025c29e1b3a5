import type { AppContext } from '../../../../platform/context.js';
import { withTransaction } from '../../../../platform/db/transaction.js';
import { notFound } from '../../../../platform/errors/app-error.js';
import { newId } from '../../../../platform/ids.js';
import { vendorRefusal } from '../../connections/service.js';
import { githubReposOf, newSourceOf, scopeOfRepos, type CreateSourceInput } from './domain.js';
import * as repo from './repo.js';
import type { SourceRow } from './repo.js';
import { attributeOutcome } from '../domain.js';
import { listPersonCandidates, shareLockUnit, upsertPulledOutcomes } from '../repo.js';
import { personLevelEnabled } from '../../units/repo.js';
import { createGithubPrClient, type GithubPrClient } from '../../vendors/github-prs.js';
import { VendorError, type DayWindow } from '../../vendors/index.js';

/**
 * Outcome sources (contract §7.7): a GitHub token and repositories whose merged pull requests
 * become PR_MERGED outcomes. As for vendor connections (§7.2): the token is sealed bound to its
 * row; create, probe and sync call GitHub with no transaction open and record the outcome after
 * (ACTIVE, or ERROR with GitHub's message and 502 vendor_error). Delete removes the source and the
 * outcomes it pulled; posted outcomes stay.
 */

const sealContext = (accountId: string, id: string) => `spend_outcome_sources:${accountId}:${id}:token`;
const sourceNotFound = (id: string) => notFound(`Outcome source ${id} not found`);

export type SourceView = {
  id: string;
  source: SourceRow['source'];
  label: string;
  scope: string;
  defaultSpendUnitId: string | null;
  status: SourceRow['status'];
  lastError: string | null;
  lastSyncedAt: Date | null;
  createdAt: Date;
};

export function toSourceView(row: SourceRow): SourceView {
  return {
    id: row.id,
    source: row.source,
    label: row.label,
    scope: row.scope,
    defaultSpendUnitId: row.default_spend_unit_id,
    status: row.status,
    lastError: row.last_error,
    lastSyncedAt: row.last_synced_at,
    createdAt: row.created_at,
  };
}

export async function listSources(ctx: AppContext, accountId: string): Promise<SourceView[]> {
  return (await repo.listSources(ctx.db, accountId)).map(toSourceView);
}

async function getSourceRow(ctx: AppContext, accountId: string, id: string): Promise<SourceRow> {
  const row = await repo.findSource(ctx.db, accountId, id);
  if (!row) throw sourceNotFound(id);
  return row;
}

/** Creates the source, then probes GitHub: 201, or 502 vendor_error carrying the (ERROR) source. */
export async function createSource(ctx: AppContext, accountId: string, input: CreateSourceInput): Promise<SourceView> {
  const source = newSourceOf(input);
  const id = newId();
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (tx) => {
    const unit = source.defaultSpendUnitId;
    if (unit !== null && !(await shareLockUnit(tx, accountId, unit))) throw notFound(`Spend unit ${unit} not found`);
    return repo.insertSource(tx, {
      id,
      account_id: accountId,
      source: source.source,
      label: source.label,
      token_sealed: ctx.secrets.seal(source.token, sealContext(accountId, id)),
      scope: scopeOfRepos(source.repos),
      default_spend_unit_id: unit,
      status: 'ACTIVE',
      created_at: now,
      modified_at: now,
    });
  });
  const outcome = await callGithub(ctx, row, (client, repos) => client.probe(repos));
  if (!outcome.ok) throw vendorRefusal(outcome.message, toSourceView(outcome.row));
  return toSourceView(outcome.row);
}

/** Probes GitHub with the stored token: `{ok: true}`, or 502 vendor_error with `{ok: false, message}`. */
export async function probeSource(ctx: AppContext, accountId: string, id: string): Promise<{ ok: true; message: null }> {
  const outcome = await callGithub(ctx, await getSourceRow(ctx, accountId, id), (client, repos) => client.probe(repos));
  if (!outcome.ok) throw vendorRefusal(outcome.message, { ok: false, message: outcome.message });
  return { ok: true, message: null };
}

export type SourceSyncResult = { connectionId: string; from: string; to: string; rowsWritten: number };

/**
 * Pulls the merged pull requests of [from, to) (GitHub called with no transaction open), then
 * upserts them in one transaction holding the source row: a source deleted meanwhile writes
 * nothing (404). Each is attributed: matching PERSON by login (person level on), else the source's
 * default unit, else none.
 */
export async function syncSource(ctx: AppContext, input: { accountId: string; sourceId: string; window: DayWindow }): Promise<SourceSyncResult> {
  const { accountId, sourceId, window } = input;
  const outcome = await callGithub(ctx, await getSourceRow(ctx, accountId, sourceId), (client, repos) => client.mergedPulls(repos, window));
  if (!outcome.ok) throw vendorRefusal(outcome.message, toSourceView(outcome.row));
  const pulls = outcome.value;
  await withTransaction(ctx.db, async (tx) => {
    const source = await repo.lockSource(tx, accountId, sourceId);
    if (!source) throw sourceNotFound(sourceId);
    const personLevel = await personLevelEnabled(tx, accountId);
    const persons = personLevel ? await listPersonCandidates(tx, accountId) : [];
    const defaultUnit = source.default_spend_unit_id !== null && (await shareLockUnit(tx, accountId, source.default_spend_unit_id)) ? source.default_spend_unit_id : null;
    const now = ctx.clock.now();
    await upsertPulledOutcomes(
      tx,
      pulls.map((pull) => ({
        id: newId(now.getTime()),
        account_id: accountId,
        source: source.source,
        source_id: source.id,
        kind: 'PR_MERGED' as const,
        external_id: pull.externalId,
        title: pull.title,
        url: pull.url,
        actor_login: pull.authorLogin,
        spend_unit_id: attributeOutcome({ actorEmail: null, actorLogin: pull.authorLogin, requestedSpendUnitId: null, sourceDefaultUnitId: defaultUnit }, persons, personLevel),
        occurred_at: pull.mergedAt,
        created_at: now,
        modified_at: now,
      })),
    );
    await repo.updateSource(tx, accountId, sourceId, { status: 'ACTIVE', last_error: null, last_synced_at: now, modified_at: now });
  });
  return { connectionId: sourceId, from: window.from, to: window.to, rowsWritten: pulls.length };
}

/** Deletes the source (its token with it) and the outcomes it pulled, in one transaction. */
export async function deleteSource(ctx: AppContext, accountId: string, id: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    if (!(await repo.lockSource(tx, accountId, id))) throw sourceNotFound(id);
    await repo.deleteSource(tx, accountId, id);
  });
}

type GithubOutcome<T> = { ok: true; value: T; row: SourceRow } | { ok: false; message: string; row: SourceRow };

/**
 * Runs one GitHub call for the source (no transaction open) and records a refusal: ERROR with
 * GitHub's message. A successful probe sets ACTIVE again; a sync does so with its write.
 */
async function callGithub<T>(ctx: AppContext, row: SourceRow, call: (client: GithubPrClient, repos: string[]) => Promise<T>): Promise<GithubOutcome<T>> {
  const spend = ctx.config.spend;
  const client = createGithubPrClient({
    baseUrl: spend.githubBaseUrl,
    adminKey: ctx.secrets.open(row.token_sealed, sealContext(row.account_id, row.id)),
    timeoutMs: spend.vendorTimeoutMs,
    maxRetries: spend.vendorMaxRetries,
    onAnswer: (status) => ctx.metrics.outboundCall('github', status),
  });
  let value: T;
  try {
    value = await call(client, githubReposOf(row.scope));
  } catch (err) {
    if (!(err instanceof VendorError)) throw err;
    const updated = await repo.updateSource(ctx.db, row.account_id, row.id, { status: 'ERROR', last_error: err.message, modified_at: ctx.clock.now() });
    return { ok: false, message: err.message, row: updated ?? row };
  }
  if (row.status === 'ACTIVE' && row.last_error === null) return { ok: true, value, row };
  const updated = await repo.updateSource(ctx.db, row.account_id, row.id, { status: 'ACTIVE', last_error: null, modified_at: ctx.clock.now() });
  return { ok: true, value, row: updated ?? row };
}
