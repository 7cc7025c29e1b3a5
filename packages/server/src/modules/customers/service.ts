import type { AppContext } from '../../platform/context.js';
import type { Executor } from '../../platform/db/database.js';
import { toUniqueConflict, UNIQUE_CONSTRAINTS } from '../../platform/db/errors.js';
import { withTransaction } from '../../platform/db/transaction.js';
import { AppError, invalid, notFound } from '../../platform/errors/app-error.js';
import { MAX_TAX_ID_LENGTH, normaliseAddressLines, normaliseText } from '../../platform/document-fields.js';
import { toPage, type PageQuery } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';
import { newId } from '../../platform/ids.js';
import { customerSubscriptions } from './extensions.js';
import { recordEvent } from '../../platform/events/outbox.js';
import * as repo from './repo.js';
import type { CustomerCreate, CustomerUpdate } from './schema.js';

/** A customer named by its reference in the caller's account, as a `…/customers/:ref/…` route names it. */
export type CustomerTarget = { accountId: string; ref: string };

/**
 * A page of what a customer owns (its keys, its portal sessions): the customer named by the target
 * (404 when absent), and the page query that names it to the owner's list.
 */
export async function customerPageQuery(ctx: AppContext, target: CustomerTarget, page: PageQuery) {
  const customer = await getCustomerByRef(ctx.db, target.accountId, target.ref);
  return { customer, query: { accountId: target.accountId, customerId: customer.id, limit: page.limit, offset: page.offset, now: ctx.clock.now() } };
}

/** A customer as this module keeps it (its stored record); only customers writes it. */
export type Customer = repo.CustomerRow;

/** Reads other modules make: the customer by our id or by its reference, undefined when absent. */
export const findCustomerById = (db: Executor, accountId: string, id: string) => repo.findCustomerById(db, accountId, id);
export const findCustomerByRef = (db: Executor, accountId: string, ref: string) => repo.findCustomerByRef(db, accountId, ref);

/** The Client API customer: the row's client view with its subscriptions. */
export async function toClientCustomerView(ctx: AppContext, row: repo.CustomerRow) {
  return { ...toClientCustomer(row), subscriptions: await customerSubscriptions.call(ctx, row.account_id, row.id) };
}

export function toClientCustomer(row: repo.CustomerRow) {
  return {
    customerReferenceId: row.customer_reference_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    billingAddressLines: row.billing_address_lines,
    taxId: row.tax_id,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

export function toAdminCustomer(row: repo.CustomerRow) {
  return {
    id: row.id,
    customerReferenceId: row.customer_reference_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    phoneNumber: row.phone_number,
    source: row.source,
    billingAddressLines: row.billing_address_lines,
    taxId: row.tax_id,
    createdAt: row.created_at,
    modifiedAt: row.modified_at,
  };
}

/** Records `customer.created` in the creating transaction (api-contract-events.md §E5.2). */
async function customerCreated(tx: Executor, row: repo.CustomerRow) {
  await recordEvent(tx, { accountId: row.account_id, type: 'customer.created', object: toAdminCustomer(row), now: row.created_at });
  return row;
}

/**
 * The billing fields of a create or PATCH (§1.2) as stored: lines trimmed, empty ones dropped; taxId
 * trimmed, "" → null. Absent stays absent (undefined); the contract's message when one breaks its rule.
 */
function checkBillingFields(input: { billingAddressLines?: string[] | null | undefined; taxId?: string | null | undefined }) {
  const out: { billing_address_lines?: string[]; tax_id?: string | null } = {};
  if (input.billingAddressLines !== undefined) {
    const lines = input.billingAddressLines === null ? [] : normaliseAddressLines(input.billingAddressLines);
    if (lines === null) throw invalid(BILLING_MESSAGES.billingAddressLines, { fields: [{ field: 'billingAddressLines', message: BILLING_MESSAGES.billingAddressLines }] });
    out.billing_address_lines = lines;
  }
  if (input.taxId !== undefined) {
    const taxId = normaliseText(input.taxId, MAX_TAX_ID_LENGTH);
    if (taxId === undefined) throw invalid(BILLING_MESSAGES.taxId, { fields: [{ field: 'taxId', message: BILLING_MESSAGES.taxId }] });
    out.tax_id = taxId;
  }
  return out;
}

const BILLING_MESSAGES = {
  billingAddressLines: 'billingAddressLines allows at most 6 lines of 200 characters',
  taxId: 'taxId must be at most 64 characters',
} as const;

export async function createCustomer(ctx: AppContext, accountId: string, input: CustomerCreate) {
  const now = ctx.clock.now();
  const billing = checkBillingFields(input);
  const ref = (input.customerReferenceId ?? input.externalClientCustomerId)!;
  try {
    // With its customer.created event (the outbox, ADR 0035); under an Idempotency-Key the transaction
    // is recorded, so a retry replays the created customer and records no second event.
    return await withTransaction(ctx.db, async (db) => customerCreated(db, await repo.insertCustomer(db, {
      id: newId(),
      account_id: accountId,
      customer_reference_id: ref,
      email: input.email,
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      phone_number: input.phoneNumber ?? null,
      address: input.address ?? null,
      billing_address_lines: billing.billing_address_lines ?? [],
      tax_id: billing.tax_id ?? null,
      source: 'MANUAL',
      created_at: now,
      modified_at: now,
    })));
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.customerReference]: `Customer with customerReferenceId '${ref}' already exists` });
  }
}

/**
 * Writes a new customer inside the caller's transaction (agent signup creates its customer, key,
 * subscription and signup row all-or-nothing). A taken reference is a 409 like the REST create.
 */
export async function createCustomerInTransaction(
  tx: Executor,
  input: { accountId: string; customerReferenceId: string; email: string; firstName: string | null; source: repo.CustomerRow['source']; now: Date },
) {
  try {
    return await customerCreated(tx, await repo.insertCustomer(tx, {
      id: newId(),
      account_id: input.accountId,
      customer_reference_id: input.customerReferenceId,
      email: input.email,
      first_name: input.firstName,
      last_name: null,
      phone_number: null,
      address: null,
      billing_address_lines: [],
      tax_id: null,
      source: input.source,
      created_at: input.now,
      modified_at: input.now,
    }));
  } catch (err) {
    throw toUniqueConflict(err, { [UNIQUE_CONSTRAINTS.customerReference]: `Customer with customerReferenceId '${input.customerReferenceId}' already exists` });
  }
}

/** The customer with this reference in the account; 404 otherwise (also for other accounts'). */
export async function getCustomerByRef(db: Executor, accountId: string, ref: string) {
  const row = await repo.findCustomerByRef(db, accountId, ref);
  if (!row) throw notFound(`Customer not found: ${ref}`);
  return row;
}

export async function getCustomerById(db: Executor, accountId: string, id: string) {
  const row = await repo.findCustomerById(db, accountId, id);
  if (!row) throw notFound(`Customer not found: ${id}`);
  return row;
}

/** A tenant-key call that names no customer. */
export const customerReferenceRequired = () =>
  new AppError('validation_failed', 'Validation failed: customerReferenceId: is required', {
    fields: [{ field: 'customerReferenceId', message: 'is required' }],
  });

/**
 * The customer a Client API call is about. A customer key is pinned to its own customer: an omitted
 * reference means its own, another reference is 403.
 */
export async function resolveCallerCustomer(db: Executor, principal: Principal, ref: string | undefined) {
  if (principal.kind === 'customer') {
    const own = await getCustomerById(db, principal.accountId, principal.customerId);
    if (ref !== undefined && ref !== own.customer_reference_id) {
      throw new AppError('forbidden', 'This API key is scoped to another customer');
    }
    return own;
  }
  if (ref === undefined) throw customerReferenceRequired();
  return getCustomerByRef(db, principal.accountId, ref);
}

/** PATCH: only the fields sent change. The row is locked while read and written, so concurrent PATCHes never lose an update. */
const ATTRIBUTES = {
  email: 'email',
  first_name: 'firstName',
  last_name: 'lastName',
  phone_number: 'phoneNumber',
  address: 'address',
  billing_address_lines: 'billingAddressLines',
  tax_id: 'taxId',
} as const;

/** The API fields whose value changed, each with its value before (customer.updated's previousAttributes). */
export function changedAttributes(before: repo.CustomerRow, after: repo.CustomerRow): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [column, field] of Object.entries(ATTRIBUTES) as [keyof typeof ATTRIBUTES, string][]) {
    if (JSON.stringify(before[column] ?? null) !== JSON.stringify(after[column] ?? null)) changed[field] = before[column] ?? null;
  }
  return changed;
}

export async function updateCustomer(ctx: AppContext, accountId: string, ref: string, input: CustomerUpdate) {
  return updateLockedCustomer(ctx, accountId, input, (tx) => repo.lockCustomerByRef(tx, accountId, ref), ref);
}

/** The admin PATCH (§3.10): the customer by our id, the same rules as the Client PATCH. */
export async function updateCustomerById(ctx: AppContext, accountId: string, id: string, input: CustomerUpdate) {
  return updateLockedCustomer(ctx, accountId, input, (tx) => repo.lockCustomerById(tx, accountId, id), id);
}

async function updateLockedCustomer(ctx: AppContext, accountId: string, input: CustomerUpdate, lock: (tx: Executor) => Promise<repo.CustomerRow | undefined>, name: string) {
  const billing = checkBillingFields(input);
  return withTransaction(ctx.db, async (tx) => {
    const row = await lock(tx);
    if (!row) throw notFound(`Customer not found: ${name}`);
    const next = {
      ...row,
      ...billing,
      email: input.email ?? row.email,
      first_name: input.firstName === undefined ? row.first_name : input.firstName,
      last_name: input.lastName === undefined ? row.last_name : input.lastName,
      phone_number: input.phoneNumber === undefined ? row.phone_number : input.phoneNumber,
      address: input.address === undefined ? row.address : input.address,
    };
    const previousAttributes = changedAttributes(row, next);
    const updated = await repo.updateCustomer(tx, { ...next, modified_at: ctx.clock.now() });
    // A PATCH that changes nothing records nothing (§E5.1); the event names what changed, with its value before.
    if (Object.keys(previousAttributes).length > 0) {
      await recordEvent(tx, { accountId, type: 'customer.updated', object: toAdminCustomer(updated), extra: { previousAttributes }, now: updated.modified_at });
    }
    return updated;
  });
}

export async function listCustomerPage(ctx: AppContext, accountId: string, ref: string | undefined, page: PageQuery) {
  const [rows, total] = await Promise.all([
    repo.listCustomers(ctx.db, accountId, { ref, limit: page.limit, offset: page.offset }),
    repo.countCustomers(ctx.db, accountId, ref),
  ]);
  return toPage(rows.map(toClientCustomer), total, page);
}

export function listAllCustomers(ctx: AppContext, accountId: string) {
  return repo.listCustomers(ctx.db, accountId, {});
}

/** Finds or creates (source EVENT_AUTO_CREATED, with its customer.created event) the customer an event names. */
export async function ensureCustomerForEvent(db: Executor, accountId: string, ref: string, now: Date) {
  const { row, created } = await repo.ensureCustomer(db, {
    id: newId(),
    account_id: accountId,
    customer_reference_id: ref,
    email: null,
    first_name: null,
    last_name: null,
    phone_number: null,
    address: null,
    billing_address_lines: [],
    tax_id: null,
    source: 'EVENT_AUTO_CREATED',
    created_at: now,
    modified_at: now,
  });
  return created ? customerCreated(db, row) : row;
}
