import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/** Invoice PDFs (api-contract-money.md §4.3–§4.5) through both routes, read back with poppler's pdftotext. */
describe('invoice documents', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let other: ReturnType<typeof monetization>;
  let apiKey: string;
  let planId: string;
  let arrearsId: string;
  let featureKey: string;
  let invoice: any;

  const pdftotext = (bytes: Buffer) => {
    const file = join(mkdtempSync(join(tmpdir(), 'invoice-doc-')), 'i.pdf');
    writeFileSync(file, bytes);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  };
  const fetchPdf = async (path: string, auth?: string) => {
    const res = await fetch(`${svc.baseUrl}${path}`, auth ? { headers: { authorization: `Bearer ${auth}` } } : {});
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const clientPdf = (id: string, auth = apiKey) => fetchPdf(`/api/v1/client/billing/invoices/${id}/pdf`, auth);
  const adminPdf = async (id: string) => {
    const res = await m.admin('GET', `/billing/invoices/${id}/pdf`);
    return res;
  };
  const errorOf = (bytes: Buffer) => JSON.parse(bytes.toString('utf8')).error;

  before(async () => {
    svc = await startTestService({ now: '2026-05-04T10:00:00Z' });
    const auth = await createTestAccount(svc);
    apiKey = auth.apiKey;
    m = monetization(svc, auth);
    other = monetization(svc, await createTestAccount(svc, { username: `other-${Date.now()}` }));
    const feature = await m.feature();
    featureKey = feature.key;
    const usage = { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.0025 } };
    planId = (await m.activePlan({ price: 49, features: [{ id: feature.id, value: usage }] })).id;
    arrearsId = (await m.activePlan({ price: 12, billingTiming: 'IN_ARREARS', features: [{ id: feature.id, value: usage }] })).id;
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { legalName: 'Acme Ltd', addressLines: ['1 Main St', 'Springfield'], taxId: 'GB123456', contactEmail: 'billing@acme.test' }));
    await m.expectOk(
      m.client('POST', '/customers', { customerReferenceId: 'ada', email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', billingAddressLines: ['9 Elm Rd', 'London'], taxId: 'DE999' }),
      201,
    );
    invoice = (await m.subscribe('ada', planId)).invoice;
  });
  after(() => svc.close());

  test('when a tenant key asks for a finalised invoice then 200 with the PDF, its exact headers and every item of §4.4 in its text', async () => {
    const res = await clientPdf(invoice.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    assert.equal(res.headers.get('content-disposition'), `inline; filename="${invoice.number}.pdf"`);
    assert.equal(res.headers.get('cache-control'), 'private, no-store');
    assert.equal(res.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    const text = pdftotext(res.bytes);
    for (const item of [
      'INVOICE',
      `Invoice number: ${invoice.number}`,
      'Issue date: 2026-05-04',
      `Due date: ${invoice.dueDate.slice(0, 10)}`,
      `Service period: ${invoice.periodStart.slice(0, 10)} to ${invoice.periodEnd.slice(0, 10)}`,
      'Status: DUE',
      'From',
      'Acme Ltd',
      '1 Main St',
      'Springfield',
      'Tax ID: GB123456',
      'billing@acme.test',
      'Bill to',
      'Ada Lovelace',
      '9 Elm Rd',
      'London',
      'Tax ID: DE999',
      'ada@example.com',
      'Reference: ada',
      'Total: 49.00 USD',
      'Amount due: 49.00 USD',
    ]) {
      assert.ok(text.includes(item), `${item} in:\n${text}`);
    }
    assert.match(text, /Description\s+Quantity\s+Unit price\s+Amount/);
    assert.match(text, /Plan base price: Plan \S+\s+1\s+49\.00 USD\s+49\.00 USD/);
  });

  test('when an invoice is rendered again, on either route, then the bytes are identical; later edits of issuer or customer do not change an issued document', async () => {
    const first = (await clientPdf(invoice.id)).bytes;
    assert.deepEqual((await clientPdf(invoice.id)).bytes, first);
    const admin = await adminPdf(invoice.id);
    assert.equal(admin.status, 200);
    assert.equal(admin.headers.get('content-type'), 'application/pdf');
    svc.clock.set('2026-06-01T00:00:00Z');
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { legalName: 'Acme Holdings plc', taxId: 'GB000' }));
    await m.expectOk(m.client('PATCH', '/customers/ada', { lastName: 'Byron', billingAddressLines: ['Elsewhere'] }));
    const after = (await clientPdf(invoice.id)).bytes;
    assert.deepEqual(after, first, 'the copy taken at finalisation is printed');
    assert.ok(pdftotext(after).includes('Acme Ltd'));
  });

  test('when a status changes then the document changes with it: paid, the amount due is zero', async () => {
    await m.markPaid(invoice.id);
    const text = pdftotext((await clientPdf(invoice.id)).bytes);
    assert.ok(text.includes('Status: PAID'));
    assert.ok(text.includes('Amount due: 0.00 USD'));
    assert.ok(text.includes('Total: 49.00 USD'));
  });

  test('when the invoice is a draft then it is a DRAFT INVOICE without issue date, named draft-<id>.pdf, printing the current issuer and customer', async () => {
    await m.customer('draft-cust');
    const draft = (await m.subscribe('draft-cust', arrearsId)).invoice;
    assert.equal(draft.status, 'PENDING');
    const res = await clientPdf(draft.id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-disposition'), `inline; filename="draft-${draft.id}.pdf"`);
    const text = pdftotext(res.bytes);
    for (const item of ['DRAFT INVOICE', 'Invoice number: DRAFT', 'Status: PENDING', 'Acme Holdings plc', 'Reference: draft-cust', 'Amount due: 0.00 USD']) {
      assert.ok(text.includes(item), `${item} in:\n${text}`);
    }
    assert.ok(!text.includes('Issue date:'));
    const raw = res.bytes.toString('latin1');
    assert.ok(raw.includes(`/CreationDate (D:${draft.createdAt.slice(0, 19).replace(/[-:T]/g, '')}Z)`), 'a draft is dated by its creation');
    // Usage lines print their units and the rule's unit price once the period closes.
    await m.event({ customerReferenceId: 'draft-cust', featureKey, usageUnits: 1200, eventIdempotencyKey: 'doc-usage-1' });
    svc.clock.set('2026-07-01T02:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    const closed = pdftotext((await clientPdf(draft.id)).bytes);
    assert.match(closed, new RegExp(`Usage for ${featureKey}: 1200 units \\(Model: usage\\)\\s+1200\\s+0\\.0025 USD\\s+3\\.00 USD`));
    assert.ok(closed.includes('Status: DUE'));
  });

  test('when the credential or the invoice is wrong then 401, 403 or 404 in the JSON envelope', async () => {
    assert.equal((await fetchPdf(`/api/v1/client/billing/invoices/${invoice.id}/pdf`)).status, 401);
    for (const id of ['not-a-uuid', '00000000-0000-7000-8000-000000000000']) {
      const res = await clientPdf(id);
      assert.equal(res.status, 404);
      assert.deepEqual([errorOf(res.bytes).code, errorOf(res.bytes).message], ['not_found', `Invoice not found: ${id}`]);
    }
    await other.customer('stranger');
    const foreignPlan = await other.activePlan({ price: 5, features: [{ id: (await other.feature()).id }] });
    const foreign = (await other.subscribe('stranger', foreignPlan.id)).invoice;
    const cross = await clientPdf(foreign.id);
    assert.equal(cross.status, 404, "another account's invoice is a plain 404");
    assert.equal((await adminPdf(foreign.id)).status, 404);

    const customerKey = await m.customerKey('ada');
    const denied = await clientPdf(invoice.id, customerKey);
    assert.equal(denied.status, 403);
    assert.equal(errorOf(denied.bytes).message, 'Access denied');
  });

  test("when a portal token asks for its own customer's invoice then 200; another customer's is 403", async () => {
    const session = await m.expectOk(m.client('POST', '/customers/ada/portal-sessions', {}), 201);
    const own = await clientPdf(invoice.id, session.token);
    assert.equal(own.status, 200);
    assert.deepEqual(own.bytes, (await clientPdf(invoice.id)).bytes, 'the same bytes as for the tenant key');
    await m.customer('bob');
    const bobs = (await m.subscribe('bob', planId)).invoice;
    const refused = await clientPdf(bobs.id, session.token);
    assert.equal(refused.status, 403);
    assert.equal(errorOf(refused.bytes).message, 'This API key is scoped to another customer');
  });
});
