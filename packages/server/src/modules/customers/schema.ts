import { z } from 'zod';
import { MAX_ADDRESS_LINES, MAX_LINE_LENGTH, MAX_TAX_ID_LENGTH } from '../../platform/document-fields.js';
import { JsonObjectSchema } from '../../platform/http/json-object-schema.js';

const email = z
  .string({ error: 'Email is required' })
  .trim()
  .min(1, 'Email is required')
  .max(320)
  .pipe(z.email({ error: 'must be a valid e-mail address' }))
  .meta({ format: 'email', description: 'E-mail address (surrounding spaces are trimmed)' });

/** Printed on invoice documents (api-contract-money.md §1.2); the rules and their messages are the service's. */
const billingFields = {
  billingAddressLines: z
    .array(z.string().meta({ maxLength: MAX_LINE_LENGTH }))
    .nullish()
    .meta({ description: `At most ${MAX_ADDRESS_LINES} lines of ${MAX_LINE_LENGTH} characters, printed on invoices; entries trimmed, empty ones dropped; null clears (PATCH).` }),
  taxId: z.string().nullish().meta({ maxLength: MAX_TAX_ID_LENGTH, description: 'Tax or VAT number printed on invoices; null or "" clears (PATCH).' }),
};

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
    ...billingFields,
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
  ...billingFields,
});

/** The fields both views of a customer show, in their order: who it is, then when it was made and changed. */
const identityFields = {
  customerReferenceId: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string().nullable(),
};
const timestampFields = { createdAt: z.date(), modifiedAt: z.date() };
const billingViewFields = { billingAddressLines: z.array(z.string()), taxId: z.string().nullable() };

export const ClientCustomerSchema = z
  .object({
    ...identityFields,
    ...billingViewFields,
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
    ...billingViewFields,
    ...timestampFields,
  })
  .meta({ id: 'AdminCustomer' });

/** A customerReferenceId as a request names it (path, query or body): 1 to 255 characters. */
export const CustomerRefSchema = z.string().min(1).max(255);
export const RefParamsSchema = z.object({ ref: CustomerRefSchema });
export const CustomerListQuerySchema = z.object({ customerReferenceId: CustomerRefSchema.optional() });

export type CustomerCreate = z.output<typeof CustomerCreateSchema>;
export type CustomerUpdate = z.output<typeof CustomerUpdateSchema>;
