/**
 * Where the credit wallet plugs into metering (the credits module implements both). A rule with no
 * credit model is not credit-backed: quotes use the identity weight and no price, and ingestion
 * draws nothing. Reservations (ADR 0012): an evaluate with `reserve: true` holds the quote under its
 * flow (`reserveForFlow`), and the event of that flow captures it (`captureForEvent`).
 */
export { captureForEvent, flowHasOpenHold, lockFlowHolds, reserveForFlow, type Reservation } from '../credits/index.js';
export { openCreditDraws, quoteCredits, type CreditDrawer, type CreditDrawInput, type CreditQuote, type CreditQuoteInput, type CreditReceipt } from '../credits/index.js';
