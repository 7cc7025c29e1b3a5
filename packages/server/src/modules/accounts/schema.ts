import { z } from 'zod';

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
