import { encodePath } from './transport.js';
import { page, split, type Call, type CallOptions, type MutationOptions } from './calls.js';
import type { OperationBody, OperationData, PageQuery } from './types.js';

export class Billing {
  constructor(private readonly call: Call) {}

  /** A customer's invoices, newest first. */
  invoices(customer: string, options: CallOptions & PageQuery = {}): Promise<OperationData<'listCustomerInvoices'>> {
    const [q, o] = split(options);
    return this.call('GET', encodePath`/api/v1/client/billing/invoices/${customer}`, { query: page(q), ...o });
  }

  /**
   * The invoice's document (api-contract-money.md §4.3): the PDF's bytes, the same bytes on every call
   * while the invoice is unchanged. Tenant key (any invoice of the account) or a portal token (its own
   * customer's); a customer key gets 403.
   */
  invoicePdf(invoiceId: string, options?: CallOptions): Promise<Uint8Array> {
    return this.call('GET', encodePath`/api/v1/client/billing/invoices/${invoiceId}/pdf`, { ...options, responseType: 'bytes' });
  }

  /** Settles a DUE invoice (no payment processor connected). */
  markPaid(invoiceId: string, options?: MutationOptions): Promise<OperationData<'markInvoicePaid'>> {
    return this.call('POST', encodePath`/api/v1/client/billing/invoices/${invoiceId}/mark-paid`, options);
  }

  /** The processor's hosted page for the subscription's first DUE invoice. */
  hostedInvoicePage(subscriptionId: string, options?: MutationOptions): Promise<OperationData<'openHostedInvoicePage'>> {
    return this.call('POST', encodePath`/api/v1/client/billing/subscriptions/${subscriptionId}/stripe/checkout`, options);
  }
}

export class Outcomes {
  constructor(private readonly call: Call) {}

  /** Posts (or updates, by `externalId`) an outcome. */
  post(input: OperationBody<'postClientOutcome'>, options?: MutationOptions): Promise<OperationData<'postClientOutcome'>> {
    return this.call('POST', '/api/v1/client/outcomes', { body: input, ...options });
  }
}
