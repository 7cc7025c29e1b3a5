import { isUuid } from '../../../platform/ids.js';
import { dec, type Decimal } from '../../../platform/money.js';

/**
 * Pure rules of the weight tariff and the price book: entry validation, batch identity, status
 * classification and weight precedence. No I/O, no clock: callers pass `now` / `at`.
 */

const MAX_TARIFF_VALUE = 1_000_000;
const MAX_TARIFF_DECIMALS = 6;
export const DEFAULT_CURRENCY = 'USD';

export const SCHEDULED_ONLY_MESSAGE =
  'Only scheduled rows (effectiveFrom in the future) can be deleted — effective rows are the settled tariff';

/** One rejected batch entry: `field` inside the entry, `reason` for `fields[]`, `message` as the contract words it. */
export type EntryProblem = { index: number; field: string; reason: string; message: string };

function entryProblem(index: number, field: string, reason: string, sentence = `${field} ${reason}`): EntryProblem {
  return { index, field, reason, message: `Entry ${index}: ${sentence}` };
}

/** The 400 message when `effectiveFrom` is not strictly after `now`, else null ("now" is already in effect, so it is refused too). */
export function checkEffectiveFrom(effectiveFrom: Date, now: Date): string | null {
  return effectiveFrom.getTime() > now.getTime()
    ? null
    : `effectiveFrom must not be in the past: ${effectiveFrom.toISOString()} is not after now (${now.toISOString()})`;
}

/** creditsPerUnit / pricePerCredit: > 0, ≤ 1,000,000, ≤ 6 decimals. Extra decimals are rejected, never rounded. */
export function checkTariffValue(value: Decimal): string | null {
  if (value.lte(0)) return 'must be positive';
  if (value.gt(MAX_TARIFF_VALUE)) return `exceeds maximum ${MAX_TARIFF_VALUE}`;
  if (value.decimalPlaces() > MAX_TARIFF_DECIMALS) return `allows at most ${MAX_TARIFF_DECIMALS} decimals`;
  return null;
}

/** Models match exactly and case-sensitively after trimming; blank means the feature default (null). */
export function normaliseModel(model: string | null | undefined): string | null {
  const trimmed = model?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

// Weights

type WeightEntryInput = { featureId: string; model?: string | null | undefined; creditsPerUnit: Decimal };
type WeightEntry = { featureId: string; model: string | null; creditsPerUnit: Decimal };

// JSON of a tuple keeps ("a|b", null) apart from ("a", "b|") whatever the model contains.
export const weightKey = (featureId: string, model: string | null) => JSON.stringify([featureId.toLowerCase(), model]);

/** Static checks of a weight batch (no database): UUIDs, values, duplicates. Entries come back normalised. */
export function validateWeightEntries(inputs: WeightEntryInput[]): { entries: WeightEntry[]; problems: EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const seen = new Set<string>();
  const entries = inputs.map((input, i) => {
    const entry = { featureId: input.featureId.trim().toLowerCase(), model: normaliseModel(input.model), creditsPerUnit: input.creditsPerUnit };
    if (!isUuid(entry.featureId)) problems.push(entryProblem(i, 'featureId', 'is not a valid UUID'));
    const valueError = checkTariffValue(entry.creditsPerUnit);
    if (valueError) problems.push(entryProblem(i, 'creditsPerUnit', valueError));
    const key = weightKey(entry.featureId, entry.model);
    if (seen.has(key)) problems.push(entryProblem(i, 'featureId', 'duplicate (feature, model) in batch', 'duplicate (feature, model) in batch'));
    seen.add(key);
    return entry;
  });
  return { entries, problems };
}

/**
 * Checks needing the account's data: the feature exists here, and its plan rules do not draw on
 * more than one credit denomination (a weight is "credits per unit" of a single denomination).
 */
export function checkWeightFeatures(entries: WeightEntry[], features: Map<string, { key: string; denominations: string[] }>): EntryProblem[] {
  return entries.flatMap((entry, i) => {
    const feature = features.get(entry.featureId);
    if (!feature) return [entryProblem(i, 'featureId', 'feature not found for this account', 'feature not found for this account')];
    if (feature.denominations.length > 1) {
      const sentence = `feature '${feature.key}' draws on more than one credit denomination (${feature.denominations.join(', ')})`;
      return [entryProblem(i, 'featureId', 'draws on more than one credit denomination', sentence)];
    }
    return [];
  });
}

// Prices

type PriceEntryInput = { denomination?: string | null | undefined; pricePerCredit: Decimal; currency?: string | null | undefined };
type PriceEntry = { denomination: string; pricePerCredit: Decimal; currency: string };

/** Static checks of a price batch: denomination present, value, currency (3 letters, upper-cased, default USD), duplicates. */
export function validatePriceEntries(inputs: PriceEntryInput[]): { entries: PriceEntry[]; problems: EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const seen = new Set<string>();
  const entries = inputs.map((input, i) => {
    const denomination = input.denomination?.trim() ?? '';
    const currency = input.currency == null ? DEFAULT_CURRENCY : input.currency.trim().toUpperCase();
    if (denomination === '') problems.push(entryProblem(i, 'denomination', 'is required'));
    const valueError = checkTariffValue(input.pricePerCredit);
    if (valueError) problems.push(entryProblem(i, 'pricePerCredit', valueError));
    if (!/^[A-Z]{3}$/.test(currency)) problems.push(entryProblem(i, 'currency', 'must be a 3-letter ISO 4217 code'));
    if (denomination !== '' && seen.has(denomination)) {
      problems.push(entryProblem(i, 'denomination', 'duplicate denomination in batch', 'duplicate denomination in batch'));
    }
    seen.add(denomination);
    return { denomination, pricePerCredit: input.pricePerCredit, currency };
  });
  return { entries, problems };
}

/** Each denomination must name a (non-deleted) credit model of the account. */
export function checkPriceDenominations(entries: PriceEntry[], known: Set<string>): EntryProblem[] {
  return entries.flatMap((entry, i) =>
    known.has(entry.denomination)
      ? []
      : [entryProblem(i, 'denomination', 'no credit model with this denomination', `no credit model with denomination '${entry.denomination}' on this account`)],
  );
}

// Batches

/**
 * Batch identity: the stored batch at an instant is "the same" as the request when both hold the
 * same keys with equal values (scale-insensitive: 2 = 2.000000). Returns the stored rows in the
 * request's order (the replay answer), or null when they differ.
 */
function matchBatch<E, R>(entries: E[], stored: R[], keyOfEntry: (e: E) => string, keyOfRow: (r: R) => string, same: (e: E, r: R) => boolean): R[] | null {
  if (entries.length !== stored.length) return null;
  const byKey = new Map(stored.map((r) => [keyOfRow(r), r]));
  const out: R[] = [];
  for (const entry of entries) {
    const row = byKey.get(keyOfEntry(entry));
    if (!row || !same(entry, row)) return null;
    out.push(row);
  }
  return out;
}

export const matchWeightBatch = <R extends WeightEntry>(entries: WeightEntry[], stored: R[]) =>
  matchBatch(entries, stored, (e) => weightKey(e.featureId, e.model), (r) => weightKey(r.featureId, r.model), (e, r) => e.creditsPerUnit.eq(r.creditsPerUnit));

export const matchPriceBatch = <R extends PriceEntry>(entries: PriceEntry[], stored: R[]) =>
  matchBatch(entries, stored, (e) => e.denomination, (r) => r.denomination, (e, r) => e.pricePerCredit.eq(r.pricePerCredit) && e.currency === r.currency);

// Time

export type TariffStatus = 'CURRENT' | 'SCHEDULED' | 'SUPERSEDED';

/** A row is in effect from its instant on: `effectiveFrom ≤ at`. */
export const isInEffect = (effectiveFrom: Date, at: Date) => effectiveFrom.getTime() <= at.getTime();

/**
 * Status per row, chain by chain (`keyOf`): rows not yet in effect are SCHEDULED, the newest row in
 * effect is CURRENT, older effective rows are SUPERSEDED (they only show up in history).
 */
export function classify<T extends { effectiveFrom: Date }>(rows: T[], keyOf: (row: T) => string, now: Date): (T & { status: TariffStatus })[] {
  const current = new Map<string, T>();
  for (const row of rows) {
    if (!isInEffect(row.effectiveFrom, now)) continue;
    const best = current.get(keyOf(row));
    if (!best || row.effectiveFrom.getTime() > best.effectiveFrom.getTime()) current.set(keyOf(row), row);
  }
  return rows.map((row) => ({
    ...row,
    status: !isInEffect(row.effectiveFrom, now) ? 'SCHEDULED' : current.get(keyOf(row)) === row ? 'CURRENT' : 'SUPERSEDED',
  }));
}

// Weight resolution

export type WeightMatch = 'MODEL' | 'FEATURE_DEFAULT' | 'NONE';
export type WeightCandidate = { id: string; model: string | null; creditsPerUnit: Decimal; effectiveFrom: Date };
export type ResolvedWeight = { weight: Decimal; weightId: string | null; weightMatch: WeightMatch };

/**
 * Precedence at `at`: the newest in-effect row for the exact (trimmed) model, else the newest
 * in-effect feature-default row, else identity 1.0. A blank/null model only sees the default chain.
 * A model row wins over a default row even when the default row is newer.
 */
export function pickWeight(candidates: WeightCandidate[], model: string | null, at: Date): ResolvedWeight {
  const wanted = normaliseModel(model);
  const newest = (chainModel: string | null) =>
    candidates
      .filter((c) => c.model === chainModel && isInEffect(c.effectiveFrom, at))
      .reduce<WeightCandidate | undefined>((best, c) => (!best || c.effectiveFrom > best.effectiveFrom ? c : best), undefined);
  const exact = wanted === null ? undefined : newest(wanted);
  if (exact) return { weight: exact.creditsPerUnit, weightId: exact.id, weightMatch: 'MODEL' };
  const fallback = newest(null);
  if (fallback) return { weight: fallback.creditsPerUnit, weightId: fallback.id, weightMatch: 'FEATURE_DEFAULT' };
  return { weight: dec(1), weightId: null, weightMatch: 'NONE' };
}
