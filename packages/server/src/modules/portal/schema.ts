import { z } from 'zod';
import { decimalOutput } from '../../platform/http/decimal-schema.js';
import { RefParamsSchema } from '../customers/index.js';
import {
  isHttpUrl,
  PORTAL_SCOPES,
  PORTAL_DEFAULT_EXPIRES_IN_SECONDS,
  PORTAL_MAX_EXPIRES_IN_SECONDS,
  PORTAL_MIN_EXPIRES_IN_SECONDS,
  PORTAL_RETURN_URL_MAX_LENGTH,
} from './domain.js';

export const PortalSessionCreateSchema = z
  .object({
    expiresInSeconds: z
      .number()
      .int()
      .min(PORTAL_MIN_EXPIRES_IN_SECONDS)
      .max(PORTAL_MAX_EXPIRES_IN_SECONDS)
      .optional()
      .describe(`Lifetime of the link in seconds; default ${PORTAL_DEFAULT_EXPIRES_IN_SECONDS}`),
    allowPurchase: z.boolean().optional().describe('Also grant the purchase scope: the portal offers credit top-ups (default false)'),
    allowPlanChange: z.boolean().optional().describe('Also grant the plan_change scope: the portal shows the catalog, subscribes, changes plan and undoes a scheduled change (default false)'),
    allowCancel: z.boolean().optional().describe('Also grant the cancel scope: the portal cancels at the end of the period and undoes it (default false)'),
    allowAutoTopup: z.boolean().optional().describe('Also grant the auto_topup scope: the portal sets and deletes auto top-up rules (default false)'),
    returnUrl: z
      .string()
      .max(PORTAL_RETURN_URL_MAX_LENGTH)
      .refine(isHttpUrl, 'returnUrl must be an absolute http or https URL')
      .optional()
      .describe('Where the portal\'s "Back" link goes (absolute http or https URL)'),
  })
  .strict()
  .nullish();

export const PortalSessionParamsSchema = RefParamsSchema.extend({ sessionId: z.uuid() });

const sessionFields = {
  id: z.uuid(),
  customerReferenceId: z.string(),
  tokenHint: z.string().describe('Prefix and last 4 characters of the token, e.g. pt_test_…a91c'),
  scopes: z.array(z.enum(PORTAL_SCOPES)).describe('read first, then purchase, plan_change, cancel, auto_topup for the flags that are true'),
  allowPurchase: z.boolean(),
  allowPlanChange: z.boolean(),
  allowCancel: z.boolean(),
  allowAutoTopup: z.boolean(),
  returnUrl: z.string().nullable(),
  active: z.boolean().describe('The link authenticates now: false once revoked or expired'),
  createdAt: z.date(),
  expiresAt: z.date(),
  revokedAt: z.date().nullable(),
};

export const PortalSessionSchema = z.object(sessionFields).meta({ id: 'PortalSession' });

/**
 * What the portal page reads with its own token: the session, plus what the page may offer and
 * whom it names (fields only this read has; create, list and revoke answer PortalSession).
 */
export const OwnPortalSessionSchema = z
  .object({
    ...sessionFields,
    operatorName: z.string().nullable().describe("The seller's name (the account's name), for the portal's messages to the customer"),
    topUpPools: z
      .array(
        z.object({
          poolId: z.uuid(),
          denomination: z.string(),
          pricePerCredit: decimalOutput.describe('Price of one credit now, in currency'),
          currency: z.string(),
        }),
      )
      .describe(
        "The customer's pools a top-up can go through now: the link has the purchase scope, a payment processor is connected, the pool is not archived and a price is published for its denomination. Empty otherwise; the portal offers \"Top up\" for these pools only.",
      ),
  })
  .meta({ id: 'OwnPortalSession' });

export const IssuedPortalSessionSchema = z
  .object({
    ...sessionFields,
    url: z.string().describe('The link to send the customer: /portal of this service with the token in the fragment'),
    token: z.string().describe('The token itself (pt_test_… / pt_live_…): shown only in this answer, never stored'),
  })
  .meta({ id: 'IssuedPortalSession' });

export type PortalSessionCreate = z.output<typeof PortalSessionCreateSchema>;
