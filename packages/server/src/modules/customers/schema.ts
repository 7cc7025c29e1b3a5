import { z } from 'zod';
import { JsonObjectSchema } from '../../platform/http/json-object-schema.js';

const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(320)
  .pipe(z.email({ error: 'must be a valid e-mail address' }))
  .meta({ format: 'email', description: 'E-mail address (surrounding spaces are trimmed)' });

export const CustomerCreateSchema = z
  .object({
    customerReferenceId: z.string().trim().min(1).max(255).optional().describe('Your id for the customer, unique per account. Required unless the deprecated alias externalClientCustomerId is sent.'),
    /** Old alias used by the original's docs. */
    externalClientCustomerId: z.string().trim().min(1).max(255).optional().meta({ deprecated: true, description: 'Deprecated alias of customerReferenceId' }),
    email,
    firstName: z.string().max(255).nullish(),
    lastName: z.string().max(255).nullish(),
    phoneNumber: z.string().max(64).nullish(),
    address: z.string().max(1000).nullish(),
  })
  .refine((b) => b.customerReferenceId ?? b.externalClientCustomerId, {
    message: 'is required',
    path: ['customerReferenceId'],
  })
  // States the refine above: one of the two names must be sent.
  .meta({ anyOf: [{ required: ['customerReferenceId'] }, { required: ['externalClientCustomerId'] }] });

export const CustomerUpdateSchema = z.object({
  email: email.optional(),
  firstName: z.string().max(255).nullish(),
  lastName: z.string().max(255).nullish(),
  phoneNumber: z.string().max(64).nullish(),
  address: z.string().max(1000).nullish(),
});

/** The fields both views of a customer show, in their order: who it is, then when it was made and changed. */
const identityFields = {
  customerReferenceId: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string().nullable(),
};
const timestampFields = { createdAt: z.date(), modifiedAt: z.date() };

export const ClientCustomerSchema = z
  .object({
    ...identityFields,
    ...timestampFields,
    subscriptions: z.array(JsonObjectSchema).optional(),
    creditPools: z.array(JsonObjectSchema).optional(),
  })
  .meta({ id: 'ClientCustomer' });

export const AdminCustomerSchema = z
  .object({
    id: z.uuid(),
    ...identityFields,
    phoneNumber: z.string().nullable(),
    source: z.string(),
    ...timestampFields,
  })
  .meta({ id: 'AdminCustomer' });

/** A customerReferenceId as a request names it (path, query or body): 1 to 255 characters. */
export const CustomerRefSchema = z.string().min(1).max(255);
export const RefParamsSchema = z.object({ ref: CustomerRefSchema });
export const CustomerListQuerySchema = z.object({ customerReferenceId: CustomerRefSchema.optional() });

export type CustomerCreate = z.output<typeof CustomerCreateSchema>;
export type CustomerUpdate = z.output<typeof CustomerUpdateSchema>;
