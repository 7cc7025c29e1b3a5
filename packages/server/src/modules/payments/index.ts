/**
 * Face of the payments module (the payment processor: connection, processor customers, payment
 * methods, hosted checkouts, credit purchases, paid subscribes, the webhook). Nothing imports it but
 * app.ts and runtime.ts.
 */
export { jobs, registerHooks } from './hooks.js';
export { paymentAdminRoutes, paymentClientRoutes, paymentWebhookRoutes, returnUrls } from './routes.js';
export { purchaseCredits } from './purchases.js';
export { getMaskedConnection, registerWebhook, storeApiKey } from './connection.js';
