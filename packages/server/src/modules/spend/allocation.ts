import { sql } from 'kysely';
import type { AppContext } from '../../platform/context.js';
import type { Tx } from '../../platform/db/database.js';
import type { SpendProvider, SpendUnitType } from '../../platform/db/tables.js';
import { dec, type Decimal } from '../../platform/money.js';
import type { VendorModel } from './prices.js';
import { actorRows, inReportTransaction, pricedGroups, withResolvedNames } from './reports.js';
import type { DayWindow } from './reports-window.js';
import * as units from './units-repo.js';

/**
 * The allocation report (contract §7.9) and the per-unit spend budgets and alerts read.
 *
 * Each usage bucket of [from, to) is priced (the price book's rate in force on its day, as the
 * usage report prices it) and goes to the first attribution rule that matches it — same provider,
 * and the rule's value equal to the bucket's workspace, API key or actor — lowest priority number
 * first, then the oldest; else it is unattributed. Rules on PERSON units are skipped while person
 * level is off. Pricing and matching run in SQL over (provider, workspace, key, actor) groups, so a
 * million buckets come back as one row per unit.
 *
 * Exactness: every amount is an exact NUMERIC sum of exact products (no rounding anywhere), so
 * Σ ownCents + unattributedCents = totalMeteredCents holds exactly; cents leave as decimal numbers
 * with their fractional part.
 *
 * Person estimates: the coding-assistant per-person rows (spend_actor_metrics) of an actor whose
 * e-mail or GitHub login is a PERSON unit's, priced from their tokens (else the vendor's estimate),
 * while person level is on. Cursor's per-person rows are left out: the same events are already
 * usage buckets (with the person as actor), so counting them again would double them.
 * `totalCents` and `personEstimateCents` both include descendants; `spendCents` is their sum.
 */
export type AllocationRow = {
  unitId: string;
  name: string;
  type: SpendUnitType;
  parentId: string | null;
  ownCents: Decimal;
  totalCents: Decimal;
  personEstimateCents: Decimal;
  spendCents: Decimal;
};

export type Allocation = {
  from: string;
  to: string;
  rows: AllocationRow[];
  unattributedCents: Decimal;
  totalMeteredCents: Decimal;
  personLevelEnabled: boolean;
};

type OwnRow = { kind: 'unit' | 'unresolved'; unit_id: string | null; cents: string | null; provider: SpendProvider | null; model: string | null };

export async function allocate(ctx: AppContext, accountId: string, w: DayWindow): Promise<Allocation> {
  const personLevel = await units.personLevelEnabled(ctx.db, accountId);
  const { own, estimates } = await withResolvedNames(ctx, accountId, () =>
    inReportTransaction(ctx, (tx) => ownAndEstimates(tx, accountId, w, personLevel)),
  );

  const unitRows = await units.listUnits(ctx.db, accountId);
  const ownOf = new Map<string | null, Decimal>(own.map((r) => [r.unit_id, dec(r.cents ?? 0)]));
  const estimateOf = personEstimates(unitRows, estimates);
  const children = new Map<string | null, units.UnitRow[]>();
  for (const u of unitRows) children.set(u.parent_id, [...(children.get(u.parent_id) ?? []), u]);

  const totals = new Map<string, { total: Decimal; estimate: Decimal }>();
  const rollUp = (unit: units.UnitRow, path: Set<string>): { total: Decimal; estimate: Decimal } => {
    const known = totals.get(unit.id);
    if (known) return known;
    let total = ownOf.get(unit.id) ?? dec(0);
    let estimate = estimateOf.get(unit.id) ?? dec(0);
    path.add(unit.id);
    for (const child of children.get(unit.id) ?? []) {
      if (path.has(child.id)) continue; // never stored (tree edits are loop-checked), but never loop
      const sub = rollUp(child, path);
      total = total.plus(sub.total);
      estimate = estimate.plus(sub.estimate);
    }
    path.delete(unit.id);
    const result = { total, estimate };
    totals.set(unit.id, result);
    return result;
  };

  const rows = unitRows.map((u) => {
    const { total, estimate } = rollUp(u, new Set());
    return {
      unitId: u.id,
      name: u.name,
      type: u.type,
      parentId: u.parent_id,
      ownCents: ownOf.get(u.id) ?? dec(0),
      totalCents: total,
      personEstimateCents: estimate,
      spendCents: total.plus(estimate),
    };
  });
  const totalMeteredCents = own.reduce((sum, r) => sum.plus(dec(r.cents ?? 0)), dec(0));
  return { from: w.from, to: w.to, rows, unattributedCents: ownOf.get(null) ?? dec(0), totalMeteredCents, personLevelEnabled: personLevel };
}

/** Metered cents per unit (null: unattributed) in SQL, the per-person rows for estimates, and names not yet resolved. */
async function ownAndEstimates(tx: Tx, accountId: string, w: DayWindow, personLevel: boolean) {
  const { rows } = await sql<OwnRow>`
    with ${pricedGroups(accountId, w, ['workspace_id', 'api_key_id', 'actor'])},
    d as (
      select provider, workspace_id, api_key_id, actor, sum(case when priced then metered_raw end) as m
        from p group by provider, workspace_id, api_key_id, actor
    ),
    -- The rules each group matches: one equality probe per match kind (spend_rules_match_idx), so the
    -- cost grows with groups + rules, never groups × rules; then the first by priority, then creation.
    hit as (
      select distinct on (m.provider, m.workspace_id, m.api_key_id, m.actor) m.spend_unit_id, m.m
        from (
          select d.*, r.spend_unit_id, r.priority, r.created_seq
            from d join spend_rules r on r.account_id = ${accountId} and r.provider = d.provider and r.match_kind = 'WORKSPACE_ID' and r.match_value = d.workspace_id
          union all
          select d.*, r.spend_unit_id, r.priority, r.created_seq
            from d join spend_rules r on r.account_id = ${accountId} and r.provider = d.provider and r.match_kind = 'API_KEY_ID' and r.match_value = d.api_key_id
          union all
          select d.*, r.spend_unit_id, r.priority, r.created_seq
            from d join spend_rules r on r.account_id = ${accountId} and r.provider = d.provider and r.match_kind = 'ACTOR' and r.match_value = d.actor
        ) m
        join spend_units u on u.account_id = ${accountId} and u.id = m.spend_unit_id
       where u.type <> 'PERSON' or ${personLevel}
       order by m.provider, m.workspace_id, m.api_key_id, m.actor, m.priority, m.created_seq
    )
    select 'unit' as kind, spend_unit_id::text as unit_id, sum(m) as cents, null::text as provider, null::text as model from hit group by spend_unit_id
    union all
    -- Unattributed: the rest of the window, exactly (NUMERIC), so Σ own + unattributed = total.
    select 'unit', null, (select sum(m) from d) - coalesce((select sum(m) from hit), 0), null, null
    union all
    select distinct 'unresolved', null::text, null::numeric, provider, model from p where not resolved`.execute(tx);
  const actors = personLevel ? await actorRows(tx, accountId, w) : [];
  const unresolved: VendorModel[] = [
    ...rows.filter((r) => r.kind === 'unresolved').map((r) => ({ provider: r.provider!, model: r.model! })),
    ...actors.filter((r) => !r.resolved && r.model !== '').map((r) => ({ provider: r.provider, model: r.model })),
  ];
  return { own: rows.filter((r) => r.kind === 'unit'), estimates: actors, unresolved };
}

/** Per PERSON unit: the priced per-person assistant rows of the actor its e-mail or GitHub login names. */
function personEstimates(unitRows: units.UnitRow[], actors: Awaited<ReturnType<typeof actorRows>>): Map<string, Decimal> {
  const personOf = new Map<string, string>();
  for (const u of unitRows) {
    if (u.type !== 'PERSON') continue;
    for (const handle of [u.email, u.github_login]) if (handle) personOf.set(handle.toLowerCase(), u.id);
  }
  const out = new Map<string, Decimal>();
  for (const a of actors) {
    if (a.provider === 'CURSOR') continue;
    const unitId = personOf.get(a.actor.toLowerCase());
    const cents = a.metered ?? a.vc;
    if (!unitId || cents === null) continue;
    out.set(unitId, (out.get(unitId) ?? dec(0)).plus(dec(cents)));
  }
  return out;
}
