import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Tally, TallyApiError, TallyNotFoundError } from '@tally/client';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** @tally/client's invoice document (issue 34, api-contract-money.md §4.3) against a real server: the PDF's bytes, errors as the envelope's. */
describe('@tally/client invoice PDF', () => {
  let svc: TestService;
  let tally: Tally;
  let apiKey: string;
  let invoiceId: string;
  let customerKey: string;

  before(async () => {
    svc = await startTestService({ now: '2026-05-04T10:00:00Z' });
    const acct = await createTestAccount(svc);
    apiKey = acct.apiKey;
    const m = monetization(svc, acct);
    const feature = await m.feature();
    const plan = await m.activePlan({ price: 49, features: [{ id: feature.id }] });
    await m.customer('ada');
    invoiceId = (await m.subscribe('ada', plan.id)).invoice.id;
    customerKey = await m.customerKey('ada', ['read', 'purchase']);
    tally = new Tally({ apiKey, baseUrl: svc.baseUrl });
  });
  after(() => svc.close());

  test('when the tenant asks for an invoice PDF then the bytes are the route’s own, unchanged between calls', async () => {
    const pdf = await tally.billing.invoicePdf(invoiceId);
    assert.ok(pdf instanceof Uint8Array);
    assert.equal(Buffer.from(pdf.subarray(0, 5)).toString('latin1'), '%PDF-');
    const raw = await fetch(`${svc.baseUrl}/api/v1/client/billing/invoices/${invoiceId}/pdf`, { headers: { 'x-api-key': apiKey } });
    assert.equal(raw.status, 200);
    assert.deepEqual(Buffer.from(pdf), Buffer.from(await raw.arrayBuffer()));
    assert.deepEqual(Buffer.from(await tally.billing.invoicePdf(invoiceId)), Buffer.from(pdf));
  });

  test('when the invoice is unknown or the key is a customer key then the envelope’s error is thrown, typed', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    await assert.rejects(tally.billing.invoicePdf(unknown), (e: unknown) => e instanceof TallyNotFoundError && e.status === 404 && e.message === `Invoice not found: ${unknown}`);
    const asCustomer = new Tally({ apiKey: customerKey, baseUrl: svc.baseUrl });
    await assert.rejects(asCustomer.billing.invoicePdf(invoiceId), (e: unknown) => e instanceof TallyApiError && e.status === 403 && e.message === 'Access denied');
  });
});
