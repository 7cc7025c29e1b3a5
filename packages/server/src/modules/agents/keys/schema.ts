import { z } from 'zod';
import { RefParamsSchema } from '../../customers/index.js';
import { CUSTOMER_SCOPES } from './domain.js';

export const KeyCreateSchema = z
  .object({
    scopes: z
      .array(z.string().max(64))
      .max(16)
      .optional()
      .describe(`Subset of ${CUSTOMER_SCOPES.join(', ')}; absent or empty: ["read"]. Duplicates collapse. Any other value is 400 "Unknown scope '<s>' — allowed: [read, purchase]".`),
  })
  .nullish();

export const KeyParamsSchema = RefParamsSchema.extend({ keyId: z.uuid() });

/**
 * The Admin API twin's customer (api-contract-agent-v2.md §2.1): our internal id, the console's.
 * Text, so that a value that is not a UUID is 404 like an unknown id rather than 400.
 */
export const CustomerIdParamsSchema = z.object({ customerId: z.string().min(1).max(64).meta({ format: 'uuid' }).describe("The customer's internal id (not its reference)") });
export const AdminKeyParamsSchema = CustomerIdParamsSchema.extend({ keyId: z.uuid() });

const keyFields = {
  id: z.uuid(),
  customerReferenceId: z.string(),
  keyHint: z.string().describe('Prefix and last 4 characters, e.g. ck_live_…a91c'),
  scopes: z.array(z.enum(CUSTOMER_SCOPES as [string, ...string[]])),
  active: z.boolean().describe('The key authenticates now: false once revoked, rotated away or expired'),
  expiresAt: z.date().nullable().describe('Issue time + 1825 days'),
  createdAt: z.date(),
};

export const CustomerKeySchema = z.object(keyFields).meta({ id: 'CustomerApiKey' });

/** The operator's view (console): the key as the Client API lists it, plus its revocation and last use. */
export const OperatorCustomerKeySchema = z
  .object({
    ...keyFields,
    revokedAt: z.date().nullable().describe('When it was revoked or rotated away; null while it is not'),
    lastUsedAt: z.date().nullable().describe('Last request it authenticated, at most a minute stale; null if never used'),
  })
  .meta({ id: 'OperatorCustomerApiKey' });

export const IssuedCustomerKeySchema = z
  .object({ ...keyFields, apiKey: z.string().describe('The key itself (ck_test_… / ck_live_…): shown only in this answer, never stored') })
  .meta({ id: 'IssuedCustomerApiKey' });
