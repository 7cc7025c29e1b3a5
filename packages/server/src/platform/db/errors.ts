import { AppError } from '../errors/app-error.js';

/** The contract's message for a unique-key collision no route quotes a more specific one for (§1.4). */
export const UNIQUE_KEY_MESSAGE = 'A record with this key already exists. Please use a different key.';

/**
 * The unique constraints and indexes services map to a domain message, by their PostgreSQL name.
 * Names are the ones the migrations create (PostgreSQL's `<table>_<columns>_key` for inline
 * `unique (…)`, or the explicit index name); a test checks each exists in the migrated schema, so a
 * rename in a migration fails the suite instead of silently turning a 409 message generic.
 */
export const UNIQUE_CONSTRAINTS = {
  featureKey: 'features_account_id_key_key',
  planKey: 'plans_account_id_key_key',
  planName: 'plans_account_id_name_key',
  customerReference: 'customers_account_id_customer_reference_id_key',
  creditModelDenomination: 'credit_models_denomination_key',
  planCreditAllocation: 'plan_credit_allocations_account_id_plan_id_credit_model_id_key',
  creditPoolName: 'credit_pools_account_id_name_key',
  creditPoolLink: 'credit_pool_links_pkey',
  creditWeightAt: 'credit_weights_key',
  creditPriceAt: 'credit_prices_account_id_denomination_effective_from_key',
  // The events table is partitioned by month: the key's uniqueness lives in a key table (ADR 0022).
  usageEventKey: 'usage_event_keys_pkey',
  creditReservationKey: 'credit_reservations_key',
  creditReservationOpenFlow: 'credit_reservations_open_flow',
  username: 'users_username_key',
  accountSlug: 'account_settings_slug_key',
  spendPriceAt: 'spend_prices_model_day_key',
} as const;

export type UniqueConstraint = (typeof UNIQUE_CONSTRAINTS)[keyof typeof UNIQUE_CONSTRAINTS];

/**
 * The name of the unique constraint or index a PostgreSQL unique_violation (23505) names, on either
 * driver (pg and PGlite both set `constraint`); null when err is not a unique violation. Matching
 * is by name only, never by message text.
 */
export function uniqueViolationOf(err: unknown): { constraint: string | null } | null {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.code === '23505') return { constraint: typeof e.constraint === 'string' ? e.constraint : citusConstraintOf(message) };
  // Citus relays some shard errors (a violation inside a multi-CTE statement) as XX000: a unique
  // violation then is recognised only by Tally's own constraint name on a shard.
  if (e?.code === 'XX000') {
    const constraint = citusConstraintOf(message);
    return constraint === null ? null : { constraint };
  }
  return null;
}

const CITUS_VIOLATION = /^duplicate key value violates unique constraint "(.+)_\d+"$/;

/**
 * On Citus (ADR 0023) a worker's unique violation reaches the client without its `constraint` field
 * (and sometimes as XX000),
 * naming the shard's constraint in the message (`usage_event_keys_pkey_102345`): the only place the
 * name is, so it is read there, the shard id taken off, and kept only if it is one of Tally's names.
 */
function citusConstraintOf(message: string): string | null {
  const name = CITUS_VIOLATION.exec(message)?.[1];
  if (name === undefined) return null;
  const known = Object.values(UNIQUE_CONSTRAINTS) as string[];
  if (known.includes(name)) return name;
  // A name too long for its shard id is cut and given an 8-hex hash by Citus: matched by that prefix.
  const prefix = /^(.+)_[0-9a-f]{8}$/.exec(name)?.[1];
  const matches = prefix === undefined ? [] : known.filter((k) => k.length > prefix.length && k.startsWith(prefix));
  return matches.length === 1 ? matches[0]! : null;
}

/** True when err is a unique violation; with `constraint`, only of exactly that constraint. */
export function isUniqueViolation(err: unknown, constraint?: UniqueConstraint): boolean {
  const violation = uniqueViolationOf(err);
  return violation !== null && (constraint === undefined || violation.constraint === constraint);
}

/**
 * Turns a unique violation into 409 `conflict`: the message given for its constraint name, else
 * the contract's generic message. Any other error is returned unchanged, so callers write
 * `catch (err) { throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.planKey]: '…' }) }`.
 */
export function toUniqueConflict(err: unknown, messages: Partial<Record<UniqueConstraint, string>> = {}): unknown {
  const violation = uniqueViolationOf(err);
  if (!violation) return err;
  const message = violation.constraint ? messages[violation.constraint as UniqueConstraint] : undefined;
  return new AppError('conflict', message ?? UNIQUE_KEY_MESSAGE, { cause: err });
}
