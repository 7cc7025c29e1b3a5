/**
 * Where the credit wallet plugs into metering (the credits module implements both). A rule with no
 * credit model is not credit-backed: quotes use the identity weight and no price, and ingestion
 * draws nothing.
 */
export { drawCredits, openCreditDraws, quoteCredits, type CreditDrawer, type CreditDrawInput, type CreditQuote, type CreditQuoteInput, type CreditReceipt } from '../credits/index.js';
