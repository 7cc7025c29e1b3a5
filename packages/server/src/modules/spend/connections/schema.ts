import { z } from 'zod';
import { MAX_ADMIN_KEY_LENGTH, MAX_LABEL_LENGTH, MAX_SCOPE_LENGTH } from './domain.js';
import { SPEND_PROVIDERS } from '../providers.js';
import { MAX_SYNC_DAYS } from '../sync/domain.js';

export const ConnectionIdParams = z.object({ id: z.uuid() });

export const CreateConnectionSchema = z.object({
  provider: z.enum(SPEND_PROVIDERS),
  label: z.string().max(MAX_LABEL_LENGTH).describe('Unique per provider among live connections, case folded.'),
  adminKey: z.string().max(MAX_ADMIN_KEY_LENGTH).describe('The vendor admin key; write-only, stored encrypted. Only its last 4 characters are ever shown.'),
  scope: z
    .string()
    .max(MAX_SCOPE_LENGTH)
    .nullish()
    .describe('COPILOT: the GitHub organisation (required). LITELLM: the proxy base URL (required; checked by the outbound-URL guard). Ignored and stored null for the others.'),
});

export const ReplaceKeySchema = z.object({ adminKey: z.string().max(MAX_ADMIN_KEY_LENGTH).describe('The new admin key; empty → 400 "adminKey is empty"') });

export const SyncQuery = z.object({
  from: z.string().max(10).optional().describe('First day, inclusive (YYYY-MM-DD, UTC). Default: to − 30 days.'),
  to: z.string().max(10).optional().describe(`Day after the last, exclusive (YYYY-MM-DD, UTC). Default: tomorrow. The window is at most ${MAX_SYNC_DAYS} days.`),
});

export const ConnectionSchema = z
  .object({
    id: z.uuid(),
    provider: z.enum(SPEND_PROVIDERS),
    label: z.string(),
    keyHint: z.string().describe('The last 4 characters of the admin key'),
    scope: z.string().nullable(),
    status: z.enum(['ACTIVE', 'ERROR']),
    lastError: z.string().nullable().describe("The vendor's message while status is ERROR"),
    lastSyncedAt: z.date().nullable(),
    syncChunksDone: z.number().int().nullable().describe('(ours) Progress of the running or last sync: chunks done'),
    syncChunksTotal: z.number().int().nullable().describe('(ours) Progress of the running or last sync: chunks in its window'),
    createdAt: z.date(),
  })
  .meta({ id: 'SpendConnection' });

export const ProbeResultSchema = z.object({ ok: z.boolean(), message: z.string().nullable() }).meta({ id: 'SpendProbeResult' });

export const SyncResultSchema = z
  .object({ connectionId: z.uuid(), from: z.string(), to: z.string(), rowsWritten: z.number().int() })
  .meta({ id: 'SpendSyncResult' });
