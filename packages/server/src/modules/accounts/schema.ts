import { z } from 'zod';
import { OPERATOR_ROLES } from '../../platform/http/operator-access.js';

export const LoginRequestSchema = z.object({
  username: z.string().trim().min(1).max(200),
  password: z.string().min(1).max(1024),
});

export const LoginResponseSchema = z.object({
  token: z.string(),
  type: z.literal('Bearer'),
  expiresAt: z.date().describe('When the token stops working (2 hours after issue)'),
});

export const ApiKeySchema = z.object({
  apiKey: z.string().describe('Masked hint on GET; the full key, shown once, on POST'),
  keyType: z.literal('secret'),
});

export const ChangePasswordRequestSchema = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(8).max(1024),
});

export const OperatorRoleSchema = z.enum(OPERATOR_ROLES).describe('OWNER: everything, users and keys; ADMIN: everything but users and ownership; BILLING: customers, subscriptions, invoices, credits, portal links; VIEWER: read only');

export const OperatorSessionSchema = z.object({
  user: z.object({ id: z.uuid(), username: z.string(), role: OperatorRoleSchema }),
  accountId: z.uuid(),
  via: z.enum(['cookie', 'bearer']).describe('cookie: the console session; bearer: a JWT from /public/v1/login'),
  csrfToken: z.string().nullable().describe('Send as X-CSRF-Token on every state-changing call made with the session cookie; null for a bearer JWT'),
  expiresAt: z.date().nullable().describe('When the session ends (2 hours after sign-in); null for a bearer JWT (its own exp)'),
  expiresInSeconds: z.number().int().nullable().describe("Seconds left by the server's clock (a browser counts from its own now); null for a bearer JWT"),
}).meta({ id: 'OperatorSession' });

export const OperatorSchema = z.object({
  id: z.uuid(),
  username: z.string(),
  role: OperatorRoleSchema,
  disabled: z.boolean(),
  disabledAt: z.date().nullable(),
  createdAt: z.date(),
}).meta({ id: 'Operator' });

export const InviteOperatorRequestSchema = z.strictObject({
  username: z.string().trim().min(1).max(200),
  role: OperatorRoleSchema,
});

export const InvitedOperatorSchema = z.object({
  user: OperatorSchema,
  password: z.string().describe('The one-time password, shown once: the new user signs in with it and changes it'),
});

export const UpdateOperatorRequestSchema = z
  .strictObject({ role: OperatorRoleSchema.optional(), disabled: z.boolean().optional() })
  .refine((b) => b.role !== undefined || b.disabled !== undefined, { message: 'Send role, disabled or both' });
