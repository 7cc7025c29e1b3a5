import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import type { Executor } from '../../../platform/db/database.js';
import { decimalOutput } from '../../../platform/http/decimal-schema.js';
import { dec, type Decimal } from '../../../platform/money.js';
import { allocate } from '../allocation/service.js';
import { listRecentOutcomes } from '../outcomes/service.js';
import { OutcomeSchema } from '../outcomes/schema.js';
import { unitReportSchema, unitTreeFields } from './report-route.js';
import { perOutcomeCents } from './rounding.js';
import type { DayWindow } from './window.js';

/**
 * The outcome report (contract §7.9): per unit, the allocation's spend (with descendants, person
 * estimates included) over the outcomes that occurred in [from, to) (with descendants), and the
 * latest 200 outcomes whatever their date (`recent`, ours, spec §4's list).
 *
 * An outcome counts for the unit it is attributed to (stored on write, contract §7.7) and every
 * ancestor of that unit. `totalSpendCents` is the window's whole metered spend (attributed or not)
 * plus every person estimate, so `costPerOutcomeCents` divides all spend by all outcomes. Quotients
 * round in `perOutcomeCents` (reports/rounding.ts); every other figure is exact.
 */

export type OutcomeCounts = { prsMerged: number; issuesDone: number; custom: number; outcomes: number; aiAssisted: number };

const none = (): OutcomeCounts => ({ prsMerged: 0, issuesDone: 0, custom: 0, outcomes: 0, aiAssisted: 0 });

function add(into: OutcomeCounts, c: OutcomeCounts): void {
  into.prsMerged += c.prsMerged;
  into.issuesDone += c.issuesDone;
  into.custom += c.custom;
  into.outcomes += c.outcomes;
  into.aiAssisted += c.aiAssisted;
}

/** UTC midnight of a report day: outcomes carry timestamps, windows are days. */
const startOf = (day: string) => new Date(`${day}T00:00:00Z`);

type CountRow = { unit_id: string | null; prs: string; issues: string; custom: string; total: string; ai: string };

/**
 * Outcomes of [from, to) per unit including descendants (`parentOf`: every unit's parent), the
 * account-wide counts, and those attributed to no unit (or to a unit gone since).
 */
export async function countOutcomes(db: Executor, accountId: string, w: DayWindow, parentOf: Map<string, string | null>) {
  const { rows } = await sql<CountRow>`
    select spend_unit_id::text as unit_id,
           count(*) filter (where kind = 'PR_MERGED') as prs, count(*) filter (where kind = 'ISSUE_DONE') as issues,
           count(*) filter (where kind = 'CUSTOM') as custom, count(*) as total, count(*) filter (where ai_assisted) as ai
      from spend_outcomes
     where account_id = ${accountId} and occurred_at >= ${startOf(w.from)} and occurred_at < ${startOf(w.to)}
     group by spend_unit_id`.execute(db);
  const perUnit = new Map<string, OutcomeCounts>();
  const total = none();
  let unattributed = 0;
  for (const r of rows) {
    const c = { prsMerged: Number(r.prs), issuesDone: Number(r.issues), custom: Number(r.custom), outcomes: Number(r.total), aiAssisted: Number(r.ai) };
    add(total, c);
    if (r.unit_id === null || !parentOf.has(r.unit_id)) {
      unattributed += c.outcomes;
      continue;
    }
    // The unit and each ancestor once (the tree is loop-checked on edit; the set guards anyway).
    const seen = new Set<string>();
    for (let id: string | null | undefined = r.unit_id; id != null && !seen.has(id); id = parentOf.get(id)) {
      seen.add(id);
      const counts = perUnit.get(id) ?? none();
      add(counts, c);
      perUnit.set(id, counts);
    }
  }
  return { perUnit, total, unattributed };
}

/** Spend ÷ outcomes; null with no outcomes or no spend. */
const costPerOutcome = (spend: Decimal, outcomes: number) => (spend.isZero() ? null : perOutcomeCents(spend, outcomes));

export async function outcomeReport(ctx: AppContext, accountId: string, w: DayWindow) {
  const allocation = await allocate(ctx, accountId, w);
  const parentOf = new Map(allocation.rows.map((r) => [r.unitId, r.parentId]));
  const { perUnit, total, unattributed } = await countOutcomes(ctx.db, accountId, w, parentOf);
  const recent = await listRecentOutcomes(ctx, accountId);
  const rootEstimates = allocation.rows.filter((r) => r.parentId === null || !parentOf.has(r.parentId)).reduce((sum, r) => sum.plus(r.personEstimateCents), dec(0));
  const totalSpendCents = allocation.totalMeteredCents.plus(rootEstimates);
  return {
    from: w.from,
    to: w.to,
    rows: allocation.rows.map((r) => {
      const c = perUnit.get(r.unitId) ?? none();
      return {
        unitId: r.unitId,
        name: r.name,
        type: r.type,
        parentId: r.parentId,
        ...c,
        spendCents: r.spendCents,
        personEstimateCents: r.personEstimateCents,
        costPerOutcomeCents: costPerOutcome(r.spendCents, c.outcomes),
      };
    }),
    totalOutcomes: total.outcomes,
    aiAssistedOutcomes: total.aiAssisted,
    unattributedOutcomes: unattributed,
    totalSpendCents,
    costPerOutcomeCents: costPerOutcome(totalSpendCents, total.outcomes),
    recent,
  };
}

const count = z.number().int();

export const OutcomeReportSchema = unitReportSchema(
  {
    ...unitTreeFields,
    prsMerged: count,
    issuesDone: count,
    custom: count,
    outcomes: count.describe('Outcomes of the window attributed to this unit or a descendant'),
    aiAssisted: count.describe('Of those, the ones marked aiAssisted'),
    spendCents: decimalOutput.describe('The allocation’s spendCents: metered totalCents (with descendants) + personEstimateCents'),
    personEstimateCents: decimalOutput,
    costPerOutcomeCents: decimalOutput.nullable().describe('spendCents ÷ outcomes, HALF_UP to 4 decimal places; null with no outcomes or no spend'),
  },
  {
    totalOutcomes: count.describe('Every outcome of the window, attributed or not'),
    aiAssistedOutcomes: count,
    unattributedOutcomes: count,
    totalSpendCents: decimalOutput.describe('The window’s metered total (attributed or not) + every person estimate'),
    costPerOutcomeCents: decimalOutput.nullable().describe('totalSpendCents ÷ totalOutcomes, HALF_UP to 4 decimal places; null with no outcomes or no spend'),
    recent: z.array(OutcomeSchema).describe('(ours) The latest 200 outcomes regardless of the window, newest first (as GET /api/v1/spend/outcomes)'),
  },
).meta({ id: 'SpendOutcomeReport' });
