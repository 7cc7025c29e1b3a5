/**
 * Face of the payments module (the payment processor: connection, processor customers, payment
 * methods, hosted checkouts, credit purchases, paid subscribes, the webhook). Imported by app.ts,
 * runtime.ts, mcp (purchases) and portal (which pools a top-up can go through).
 */
export { jobs, registerHooks } from './hooks.js';
export { paymentAdminRoutes, paymentClientRoutes, paymentWebhookRoutes, returnUrls } from './routes.js';
export { listTopUpOffers, purchaseCredits, type TopUpOffer } from './purchases.js';
export { getMaskedConnection, registerWebhook, storeApiKey } from './connection.js';
