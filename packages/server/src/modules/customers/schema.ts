import { z } from 'zod';

const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(320)
  .pipe(z.email({ error: 'must be a valid e-mail address' }));

export const CustomerCreateSchema = z
  .object({
    customerReferenceId: z.string().trim().min(1).max(255).optional(),
    /** Old alias used by the original's docs. */
    externalClientCustomerId: z.string().trim().min(1).max(255).optional(),
    email,
    firstName: z.string().max(255).nullish(),
    lastName: z.string().max(255).nullish(),
    phoneNumber: z.string().max(64).nullish(),
    address: z.string().max(1000).nullish(),
  })
  .refine((b) => b.customerReferenceId ?? b.externalClientCustomerId, {
    message: 'is required',
    path: ['customerReferenceId'],
  });

export const CustomerUpdateSchema = z.object({
  email: email.optional(),
  firstName: z.string().max(255).nullish(),
  lastName: z.string().max(255).nullish(),
  phoneNumber: z.string().max(64).nullish(),
  address: z.string().max(1000).nullish(),
});

export const ClientCustomerSchema = z
  .object({
    customerReferenceId: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    createdAt: z.date(),
    modifiedAt: z.date(),
    subscriptions: z.array(z.record(z.string(), z.unknown())).optional(),
    creditPools: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .meta({ id: 'ClientCustomer' });

export const AdminCustomerSchema = z
  .object({
    id: z.uuid(),
    customerReferenceId: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    phoneNumber: z.string().nullable(),
    source: z.string(),
    createdAt: z.date(),
    modifiedAt: z.date(),
  })
  .meta({ id: 'AdminCustomer' });

export const RefParams = z.object({ ref: z.string().min(1).max(255) });
export const CustomerListQuery = z.object({ customerReferenceId: z.string().min(1).max(255).optional() });

export type CustomerCreate = z.output<typeof CustomerCreateSchema>;
export type CustomerUpdate = z.output<typeof CustomerUpdateSchema>;
