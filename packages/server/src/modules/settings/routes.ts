import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { envelopeSchema, ok } from '../../platform/http/envelope.js';
import { accountIdOf, adminOf } from '../../platform/http/principal.js';
import type { AccountSettings } from './domain.js';
import { AccountSettingsSchema, AuditLogEntrySchema, AuditLogQuerySchema, SettingsPatchSchema } from './schema.js';
import * as service from './service.js';

const tags = ['Account settings'];

/** The settings as the contract shows them (§5.1): no account id, `stripeEnabled` derived. */
function toSettingsView(s: AccountSettings) {
  return {
    stripeMode: s.stripeMode,
    stripeEnabled: s.stripeMode !== 'NONE',
    stripeCheckoutSuccessUrl: s.stripeCheckoutSuccessUrl,
    stripeCheckoutCancelUrl: s.stripeCheckoutCancelUrl,
    currency: s.currency,
    defaultCostConfig: s.defaultCostConfig,
    slug: s.slug,
    publicCatalogEnabled: s.publicCatalogEnabled,
    agentSignupEnabled: s.agentSignupEnabled,
    agentSignupDefaultPlanId: s.agentSignupDefaultPlanId,
    agentSignupHourlyCap: s.agentSignupHourlyCap,
    agentMaxTopupAmount: s.agentMaxTopupAmount,
    agentProvisionalDays: s.agentProvisionalDays,
    agentSignupPerIpCap: s.agentSignupPerIpCap,
    agentSpendMandateEnabled: s.agentSpendMandateEnabled,
    agentMaxMandateAmount: s.agentMaxMandateAmount,
    usageThresholdPercents: s.usageThresholdPercents,
    invoiceNumberPrefix: s.invoiceNumberPrefix,
    legalName: s.legalName,
    addressLines: s.addressLines,
    taxId: s.taxId,
    contactEmail: s.contactEmail,
  };
}

const PATCH_DESCRIPTION = [
  'Only the fields sent change; null clears a nullable field. Rules between fields are checked on the stored settings merged with the request, under a row lock:',
  'publicCatalogEnabled=true needs a slug; agentSignupEnabled=true needs a default plan that is ACTIVE and free (re-checked when signup is turned on);',
  'clearing the slug or the default plan is refused while the surface that needs it is on. Changes of stripeMode, slug, publicCatalogEnabled,',
  'agentSignupEnabled, agentSignupDefaultPlanId, agentMaxTopupAmount, agentProvisionalDays, agentSignupPerIpCap, agentSpendMandateEnabled and',
  'agentMaxMandateAmount are written to the audit log (GET /api/v1/tanso/audit-log). agentSpendMandateEnabled=true needs agentMaxMandateAmount.',
].join(' ');

export function settingsAdminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/v1/tanso/account-settings', { schema: { tags, operationId: 'getAccountSettings', summary: 'The account settings (defaults until first saved)', response: { 200: envelopeSchema(AccountSettingsSchema) } } },
      async (request) => ok(toSettingsView(await service.getAccountSettings(ctx.db, accountIdOf(request)))));
    app.patch('/api/v1/tanso/account-settings', { config: { ownAudit: true }, schema: { tags, operationId: 'updateAccountSettings', summary: 'Update account settings (only the fields sent)', description: PATCH_DESCRIPTION, body: SettingsPatchSchema, response: { 200: envelopeSchema(AccountSettingsSchema) } } },
      async (request) => {
        const admin = adminOf(request);
        return ok(toSettingsView(await service.updateAccountSettings(ctx, { accountId: admin.accountId, actor: `user:${admin.userId}`, patch: request.body })));
      });
    app.get('/api/v1/tanso/audit-log', { schema: { tags, operationId: 'listAuditLog', summary: 'The account audit log, newest first', querystring: AuditLogQuerySchema, response: { 200: envelopeSchema(z.array(AuditLogEntrySchema)) } } },
      async (request) => ok((await service.listAuditLog(ctx, accountIdOf(request), request.query.limit)).map(toAuditEntryView)));
  };
}

function toAuditEntryView(row: service.AuditLogRow) {
  return { id: row.id, actor: row.actor, action: row.action, details: row.details, createdAt: row.created_at };
}
