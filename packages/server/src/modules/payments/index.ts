/**
 * Face of the payments module (the payment processor: connection, processor customers, payment
 * methods, hosted checkouts, credit purchases, paid subscribes, the webhook). Imported by app.ts,
 * runtime.ts, mcp (purchases), portal (which pools a top-up can go through) and agents (spend
 * mandate pages, the owner e-mail given to the processor customer).
 */
export { jobs, registerHooks } from './hooks.js';
export { paymentAdminRoutes, paymentClientRoutes, paymentWebhookRoutes, returnUrls } from './routes.js';
export { listTopUpOffers, purchaseCredits, type TopUpOffer } from './purchases.js';
export { checkoutReturnRoutes, defaultReturnUrls, type CheckoutReturnKind } from './return-pages.js';
export { getMaskedConnection, registerWebhook, storeApiKey } from './connection.js';
export { latestMandatePage, openMandateCheckout, type MandatePage, type MandatePageAnswer, type MandatePageRequest } from './mandate/pages.js';
export { pushCustomerEmailAfterCommit } from './processor/customers.js';
