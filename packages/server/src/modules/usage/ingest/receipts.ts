import { AppError } from '../../../platform/errors/app-error.js';
import type { CreditReceipt } from '../credits-seam.js';
import type { EventPlan } from './plan.js';

/** The answer to a repeated eventIdempotencyKey (contract §4.10: 409 conflict, the stored event untouched). */
export const duplicate = (key: string) => new AppError('conflict', `Event with eventIdempotencyKey '${key}' was already ingested`);

/** A hard-limit pool that cannot cover the charge (contract §4.10: 409, message starting `Credit pool depleted`). */
export const depleted = (denomination: string | null) => new AppError('insufficient_credits', `Credit pool depleted - hard limit active for denomination ${denomination}`);

/** The receipt of a stored event: 201, or 200 with usageLimitExceeded when it went over max_usage and was stored zeroed. */
export function receiptOf(plan: EventPlan, limitExceeded: boolean, receipt: CreditReceipt | null) {
  return {
    status: (limitExceeded ? 200 : 201) as 200 | 201,
    receipt: {
      eventId: plan.event.id,
      eventIdempotencyKey: plan.event.event_idempotency_key,
      ...(limitExceeded
        ? { usageLimitExceeded: true, message: `Usage limit of ${plan.pricing!.maxUsage!.toFixed()} exceeded. Event recorded but zeroed out.` }
        : {}),
      ...(receipt
        ? {
            creditsDeducted: receipt.creditsDeducted,
            weightApplied: receipt.weightApplied,
            weightId: receipt.weightId,
            weightMatch: receipt.weightMatch,
            remainingBalance: receipt.remainingBalance,
          }
        : {}),
    },
  };
}
