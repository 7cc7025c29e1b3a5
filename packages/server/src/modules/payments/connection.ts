import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, invalid } from '../../platform/errors/app-error.js';
import { maskSecret } from '../../platform/security/secrets.js';
import { setStripeMode } from '../settings/index.js';
import { REGISTERED_EVENT_TYPES } from './events.js';
import { isAuthenticationError, processorMessage, stripeProcessor, type Processor } from './processor/stripe.js';
import * as repo from './repo.js';

/**
 * The account's processor connection (contract §5.4): its secret key (validated with one call),
 * the webhook endpoint registered at the processor and its signing secret, both sealed with
 * APP_SECRETS_KEY. The install-wide STRIPE_API_KEY / STRIPE_WEBHOOK_SECRET stand in for an account
 * that stored none.
 */

/** Binds a sealed value to its account and field: copied to another row, it does not open. */
const sealContext = (accountId: string, field: 'api_key' | 'webhook_secret') => `processor_connections:${accountId}:${field}`;

export const WEBHOOK_PATH = (accountId: string) => `/public/stripe/ingest/webhook/${accountId}`;

/** The secret key calls for this account use, or null when none is stored or configured. */
export async function processorKey(ctx: AppContext, accountId: string): Promise<string | null> {
  const row = await repo.findConnection(ctx.db, accountId);
  if (row?.api_key_sealed) return ctx.secrets.open(row.api_key_sealed, sealContext(accountId, 'api_key'));
  return ctx.config.stripe.fallbackApiKey ?? null;
}

/** The processor operations for this account, or null when no key is stored or configured. */
export async function connectedProcessor(ctx: AppContext, accountId: string): Promise<Processor | null> {
  const key = await processorKey(ctx, accountId);
  return key ? stripeProcessor(ctx.config, key, ctx.metrics) : null;
}

/** The signing secret webhooks for this account are verified with, or null. */
export async function webhookSecret(ctx: AppContext, accountId: string): Promise<string | null> {
  const row = await repo.findConnection(ctx.db, accountId);
  if (row?.webhook_secret_sealed) return ctx.secrets.open(row.webhook_secret_sealed, sealContext(accountId, 'webhook_secret'));
  return ctx.config.stripe.fallbackWebhookSecret ?? null;
}

/** Stores the key after one processor call accepts it; a refusal is 502 vendor_error with its message. */
export async function storeApiKey(ctx: AppContext, accountId: string, apiKey: string): Promise<void> {
  try {
    await stripeProcessor(ctx.config, apiKey, ctx.metrics).checkKey();
  } catch (err) {
    throw new AppError('vendor_error', isAuthenticationError(err) ? `Stripe refused the key: ${processorMessage(err)}` : `Stripe could not be reached to check the key: ${processorMessage(err)}`, { cause: err });
  }
  const now = ctx.clock.now();
  await withTransaction(ctx.db, (tx) =>
    repo.upsertConnection(tx, accountId, { api_key_sealed: ctx.secrets.seal(apiKey, sealContext(accountId, 'api_key')), api_key_mask: maskSecret(apiKey) }, now),
  );
}

/**
 * Registers (or re-registers) the webhook endpoint at the processor and stores its signing secret.
 * A replaced endpoint is deleted at the processor afterwards, best effort.
 */
export async function registerWebhook(ctx: AppContext, accountId: string, baseUrl: string): Promise<void> {
  const apiKey = await processorKey(ctx, accountId);
  if (!apiKey) throw invalid('Store a Stripe API key before registering the webhook (POST /api/v1/data/stripe/api)');
  const processor = stripeProcessor(ctx.config, apiKey, ctx.metrics);
  const previous = (await repo.findConnection(ctx.db, accountId))?.webhook_endpoint_id ?? null;
  let endpoint;
  try {
    endpoint = await processor.createWebhookEndpoint({
      url: `${baseUrl}${WEBHOOK_PATH(accountId)}`,
      enabledEvents: REGISTERED_EVENT_TYPES,
      description: 'Tally billing',
      metadata: { tally_account_id: accountId },
    });
  } catch (err) {
    throw new AppError('vendor_error', `Stripe refused the webhook registration: ${processorMessage(err)}`, { cause: err });
  }
  const secret = endpoint.secret;
  if (!secret) throw new AppError('vendor_error', 'Stripe returned no signing secret for the webhook endpoint');
  const now = ctx.clock.now();
  await withTransaction(ctx.db, (tx) =>
    repo.upsertConnection(tx, accountId, { webhook_endpoint_id: endpoint.id, webhook_secret_sealed: ctx.secrets.seal(secret, sealContext(accountId, 'webhook_secret')), webhook_secret_mask: maskSecret(secret) }, now),
  );
  if (previous && previous !== endpoint.id) await processor.deleteWebhookEndpoint(previous).catch(() => undefined);
}

/** Masked secrets; a field is omitted when that secret is not stored. */
export async function getMaskedConnection(ctx: AppContext, accountId: string) {
  const row = await repo.findConnection(ctx.db, accountId);
  return {
    ...(row?.api_key_mask ? { stripeApiKey: row.api_key_mask } : {}),
    ...(row?.webhook_secret_mask ? { webhookSecret: row.webhook_secret_mask } : {}),
  };
}

/** Deletes both secrets and resets stripeMode to NONE (audit-logged), in one transaction. */
export async function deleteConnection(ctx: AppContext, accountId: string, actor: string): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await repo.deleteConnection(tx, accountId);
    await setStripeMode(tx, accountId, 'NONE', actor, ctx.clock.now());
  });
}
