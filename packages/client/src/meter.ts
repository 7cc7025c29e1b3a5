/**
 * The metering loop for streaming calls (README "Streaming calls"): evaluate with a reservation,
 * run the call, report the event under the same flow so the hold is captured at the actual amount.
 *
 * 1. `POST /entitlements` with `reserve: true` and a `flowId` made here: the estimate's credits are
 *    held. The flowId makes a retried evaluate return the same hold instead of holding twice.
 *    A denial returns `{ allowed: false, reason }` and the callback never runs.
 * 2. The callback runs (stream the model's answer) and returns the actual units.
 * 3. `POST /events` with the same flowId and an `eventIdempotencyKey` made once in step 1 (also its
 *    `Idempotency-Key`, so a retried report replays the first answer): the event captures the hold
 *    at the actual charge and releases the rest.
 *
 * If the callback throws, the hold is released (`POST /credits/reservations/{id}/release`) and the
 * callback's error is rethrown. If the release itself fails, the hold expires on its own
 * (default 300 s) and the callback's error is still the one rethrown.
 */
import { TallyError } from './errors.js';
import { DirectEvents, type EventResult, type TrackEvent } from './events.js';
import { newIdempotencyKey, type Transport } from './transport.js';
import type { DecimalInput, OperationData } from './types.js';

export type MeterOptions = {
  /** Units the call is expected to use; their credits are held while it runs. */
  estimate: DecimalInput;
  /** The model, for the credit weight of the feature (`creditQuote.weightMatch: MODEL`). */
  model?: string;
  /** The event's name (default `<featureKey>.usage`). */
  eventName?: string;
  /** Defaults to a fresh UUID; give your own to tie the call to your logs. */
  flowId?: string;
  /** Defaults to `meter-<flowId>`. */
  eventIdempotencyKey?: string;
  modelProvider?: string;
  meta?: Record<string, unknown>;
  timeoutMs?: number;
  signal?: AbortSignal;
};

/** What the callback may return instead of the bare units: them with token counts and a value to pass back. */
export type MeterUsage<T = undefined> = {
  units: DecimalInput;
  inputTokens?: number;
  outputTokens?: number;
  costAmount?: DecimalInput;
  meta?: Record<string, unknown>;
  value?: T;
};

type Evaluation = OperationData<'evaluateEntitlement'>;
type Reservation = NonNullable<Evaluation['reservation']>;

export type MeterContext = {
  flowId: string;
  /** The evaluation that allowed the call (its credit quote, usage, …). */
  evaluation: Evaluation;
  /** The hold of the estimate's credits; null when nothing was held (no credits behind the feature). */
  reservation: Reservation | null;
};

export type MeterResult<T> =
  | {
      allowed: true;
      flowId: string;
      /** The units reported. */
      units: string;
      /** The callback's `value` (when it returned a `MeterUsage`). */
      value: T | undefined;
      /** The usage event's result: `stored` (captured the hold), `duplicate` (a retry of a stored report), or `refused` (the hold had expired and a hard-limit pool could not cover the draw). */
      event: EventResult;
      evaluation: Evaluation;
      reservation: Reservation | null;
    }
  | { allowed: false; flowId: string; reason: { code: string; description: string }; evaluation: Evaluation };

/** The report of a finished call failed: the usage happened but is not recorded. Send `event` again (its key makes that safe). */
export class TallyMeterReportError extends TallyError {
  constructor(readonly event: TrackEvent & { eventIdempotencyKey: string }, cause: unknown) {
    super('meter_report_failed', `The usage event of flow ${String(event.flowId)} was not recorded: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/**
 * Runs one metered call. `customer` is the customer's reference with a tenant key, `undefined`
 * with a customer key (the key's own customer).
 */
export async function meter<T = undefined>(
  transport: Transport,
  customer: string | undefined,
  featureKey: string,
  options: MeterOptions,
  callback: (ctx: MeterContext) => Promise<DecimalInput | MeterUsage<T>>,
): Promise<MeterResult<T>> {
  const flowId = options.flowId ?? newIdempotencyKey();
  const call = { ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.signal ? { signal: options.signal } : {}) };
  const customerField = customer === undefined ? {} : { customerReferenceId: customer };
  const { data: evaluation } = await transport.request<Evaluation>({
    method: 'POST',
    path: '/api/v1/client/entitlements',
    body: { ...customerField, featureKey, usage: { usageUnits: String(options.estimate), ...(options.model ? { model: options.model } : {}) }, reserve: true, context: { flowId } },
    // Safe to send again: a repeated evaluate of a flow with an open hold returns that hold.
    retry: true,
    ...call,
  });
  if (!evaluation.allowed) {
    return { allowed: false, flowId, reason: evaluation.meta?.reason ?? { code: 'DENIED', description: 'Not entitled' }, evaluation };
  }
  const reservation = evaluation.reservation ?? null;

  let usage: MeterUsage<T>;
  try {
    const returned = await callback({ flowId, evaluation, reservation });
    usage = typeof returned === 'object' && returned !== null ? returned : { units: returned };
  } catch (err) {
    if (reservation?.status === 'HELD') {
      // Best effort: if this fails too, the hold expires on its own; the callback's error is the one that matters.
      await transport.request({ method: 'POST', path: `/api/v1/client/credits/reservations/${encodeURIComponent(reservation.id)}/release`, retry: true }).catch(() => undefined);
    }
    throw err;
  }

  const event = {
    eventName: options.eventName ?? `${featureKey}.usage`,
    ...customerField,
    featureKey,
    usageUnits: String(usage.units),
    flowId,
    eventIdempotencyKey: options.eventIdempotencyKey ?? `meter-${flowId}`,
    ...(usage.costAmount !== undefined ? { costAmount: String(usage.costAmount) } : {}),
    costInput: {
      ...(options.model ? { model: options.model } : {}),
      ...(options.modelProvider ? { modelProvider: options.modelProvider } : {}),
      ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
      ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
    },
    ...(options.meta || usage.meta ? { meta: { ...options.meta, ...usage.meta } } : {}),
  };
  let result: EventResult;
  try {
    result = await new DirectEvents(transport).track(event, call);
  } catch (err) {
    throw new TallyMeterReportError(event, err);
  }
  return { allowed: true, flowId, units: event.usageUnits, value: usage.value, event: result, evaluation, reservation };
}
