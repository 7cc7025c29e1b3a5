/**
 * Tenant isolation for scheduled jobs: a job works through its items (a subscription, an invoice, a
 * grant …) one at a time, each in its own transaction. An item that throws is skipped (its
 * transaction rolled back) and remembered; the job goes on with the next item and, at the end,
 * throws `JobItemsFailed` so the scheduler logs every skipped item (kind, id, account id, cause)
 * and records the run as FAILED with the count. One tenant's bad row never stops the others.
 */
import { sql, type SelectQueryBuilder } from 'kysely';

export type JobItem = { id: string; account_id: string };

/** How many items a job reads at a time. */
export const JOB_PAGE_SIZE = 500;

/**
 * The keyset page of a job's item query (`JobItems.each`): `id > after` (null: from the start),
 * ordered by id, `JOB_PAGE_SIZE` at a time. `idColumn` names the item's id (qualified in a join).
 * Use as `.$call(jobPage('invoices.id', after))`.
 */
export function jobPage(idColumn: string, after: string | null) {
  return <QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB =>
    qb.$if(after !== null, (q) => q.where(sql.ref(idColumn), '>', after)).orderBy(sql.ref(idColumn)).limit(JOB_PAGE_SIZE) as QB;
}
export type ItemFailure = { kind: string; id: string; accountId: string; cause: unknown };

export class JobItemsFailed extends Error {
  constructor(readonly failures: readonly ItemFailure[]) {
    const shown = failures.slice(0, 5).map((f) => `${f.kind} ${f.id} (account ${f.accountId})`);
    const more = failures.length > shown.length ? `, and ${failures.length - shown.length} more` : '';
    super(`${failures.length} item${failures.length === 1 ? '' : 's'} failed and were skipped: ${shown.join(', ')}${more}`);
    this.name = 'JobItemsFailed';
  }
}

/** The failures of one job run, across its item loops. */
export class JobItems {
  readonly failures: ItemFailure[] = [];

  /**
   * Runs `handle` on every item `page` returns, in pages keyed by id: `page(after)` returns the next
   * items with `id > after` (null: from the start), ordered by id. Keyset paging means a failed item
   * that is still due is passed over instead of being fetched again forever, and a tenant with many
   * failing rows cannot fill every page.
   */
  async each<T extends JobItem>(kind: string, page: (after: string | null) => Promise<T[]>, handle: (item: T) => Promise<void>): Promise<void> {
    let after: string | null = null;
    for (let items = await page(after); items.length > 0; items = await page(after)) {
      for (const item of items) {
        try {
          await handle(item);
        } catch (cause) {
          this.failures.push({ kind, id: item.id, accountId: item.account_id, cause });
        }
      }
      after = items[items.length - 1]!.id;
    }
  }

  /** Throws `JobItemsFailed` when any item failed. Call once, after every loop of the run. */
  finish(): void {
    if (this.failures.length > 0) throw new JobItemsFailed(this.failures);
  }
}
