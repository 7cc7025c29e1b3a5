/**
 * Face of the webhooks module (outbound events to a tenant's endpoints, issue 33, ADR 0035): the
 * Admin routes and the relay. Modules record events through the platform's outbox
 * (platform/events/outbox.ts), never through this module.
 */
export { webhookRoutes } from './routes.js';
export { createRelay, purgeOldEvents, type Relay } from './relay.js';
