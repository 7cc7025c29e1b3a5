import type { Tx } from '../../platform/db/database.js';
import { dec, roundCredits, type Decimal } from '../../platform/money.js';

/**
 * Where the credit wallet plugs into metering. Both are called with the feature's rule; a rule with
 * no credit model is not credit-backed. Until the credits module lands, every feature is unbacked:
 * quotes use the identity weight and no price, and ingestion draws nothing.
 */
export type CreditQuote = {
  weight: Decimal;
  estimatedCredits: Decimal;
  weightId: string | null;
  weightMatch: 'MODEL' | 'FEATURE_DEFAULT' | 'NONE';
  pricePerCredit: Decimal | null;
  currency: string | null;
  estimatedCost: Decimal | null;
};

export type CreditQuoteInput = { accountId: string; customerId: string; featureId: string | null; creditModelId: string | null; units: Decimal; model: string | null; now: Date };

export async function quoteCredits(input: CreditQuoteInput): Promise<{ quote: CreditQuote; limitReached: boolean }> {
  return {
    quote: {
      weight: dec(1),
      estimatedCredits: roundCredits(input.units),
      weightId: null,
      weightMatch: 'NONE',
      pricePerCredit: null,
      currency: null,
      estimatedCost: null,
    },
    limitReached: false,
  };
}

export type CreditReceipt = {
  creditsDeducted: Decimal;
  weightApplied: Decimal;
  weightId: string | null;
  weightMatch: CreditQuote['weightMatch'];
  remainingBalance: Decimal;
};

export type CreditDrawInput = CreditQuoteInput & { subscriptionId: string | null; eventId: string; occurredAt: Date };

/**
 * Draws the event's weighted charge from the customer's pools inside the ingestion transaction, or
 * throws 409 insufficient_credits for a hard-limit pool that cannot cover it. Null: not credit-backed.
 */
export async function drawCredits(_tx: Tx, _input: CreditDrawInput): Promise<CreditReceipt | null> {
  return null;
}
