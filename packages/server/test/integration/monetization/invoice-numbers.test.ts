import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * Invoice numbers, issuer settings and customer billing fields (api-contract-money.md §1.1, §1.2,
 * §4.1, §4.2): gap-free per account and UTC year, given at finalisation in its transaction.
 */
describe('invoice numbers and document fields', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  let featureId: string;
  let featureKey: string;
  let paid: { id: string };

  before(async () => {
    svc = await startTestService({ now: '2026-03-10T09:00:00Z' });
    m = monetization(svc, await createTestAccount(svc));
    const feature = await m.feature();
    featureId = feature.id;
    featureKey = feature.key;
    paid = await m.activePlan({ price: 49, features: [{ id: featureId, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.0025 } } }] });
  });
  after(() => svc.close());

  const settings = (body: unknown) => m.api('PATCH', '/api/v1/tanso/account-settings', body);
  const numberOf = (n: number, year = 2026, prefix = 'INV') => `${prefix}-${year}-${String(n).padStart(6, '0')}`;
  const allNumbers = async () => ((await m.expectOk(m.admin('GET', '/billing/invoices'))) as any[]).map((i) => i.number).filter((n) => n !== null).sort();

  test('when issuer settings are patched then they are normalised and answered; bad values get the exact messages', async () => {
    const fresh = await m.expectOk(m.api('GET', '/api/v1/tanso/account-settings'));
    assert.equal(fresh.invoiceNumberPrefix, 'INV');
    assert.deepEqual([fresh.legalName, fresh.addressLines, fresh.taxId, fresh.contactEmail], [null, [], null, null]);

    const set = await m.expectOk(settings({ invoiceNumberPrefix: ' acme1 ', legalName: 'Acme Ltd', addressLines: [' 1 Main St ', '', 'Springfield'], taxId: 'GB123', contactEmail: 'billing@acme.test' }));
    assert.deepEqual(
      [set.invoiceNumberPrefix, set.legalName, set.addressLines, set.taxId, set.contactEmail],
      ['ACME1', 'Acme Ltd', ['1 Main St', 'Springfield'], 'GB123', 'billing@acme.test'],
    );
    const refused: [string, unknown, string][] = [
      ['invoiceNumberPrefix', 'INV-1', 'invoiceNumberPrefix must be 1-10 letters or digits'],
      ['invoiceNumberPrefix', 'ABCDEFGHIJK', 'invoiceNumberPrefix must be 1-10 letters or digits'],
      ['legalName', 'x'.repeat(201), 'legalName must be at most 200 characters'],
      ['addressLines', ['1', '2', '3', '4', '5', '6', '7'], 'addressLines allows at most 6 lines of 200 characters'],
      ['addressLines', ['y'.repeat(201)], 'addressLines allows at most 6 lines of 200 characters'],
      ['taxId', 't'.repeat(65), 'taxId must be at most 64 characters'],
      ['contactEmail', 'not-an-email', 'contactEmail must be an e-mail address'],
    ];
    for (const [field, value, message] of refused) {
      const res = await settings({ [field]: value });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.equal(res.body.error.message, message);
    }
    const cleared = await m.expectOk(settings({ invoiceNumberPrefix: '', legalName: '', addressLines: null, taxId: null, contactEmail: '' }));
    assert.deepEqual(
      [cleared.invoiceNumberPrefix, cleared.legalName, cleared.addressLines, cleared.taxId, cleared.contactEmail],
      ['INV', null, [], null, null],
    );
  });

  test('when a customer is created or patched with billing fields then both views show them; bad ones get the exact messages', async () => {
    const created = await m.expectOk(
      m.client('POST', '/customers', { customerReferenceId: 'bill-1', email: 'b1@example.com', billingAddressLines: [' 9 Elm Rd ', ' '], taxId: ' DE999 ' }),
      201,
    );
    assert.deepEqual([created.billingAddressLines, created.taxId], [['9 Elm Rd'], 'DE999']);
    const plain = await m.customer();
    assert.deepEqual([plain.billingAddressLines, plain.taxId], [[], null]);

    const patched = await m.expectOk(m.client('PATCH', '/customers/bill-1', { billingAddressLines: ['Flat 2', '9 Elm Rd'] }));
    assert.deepEqual([patched.billingAddressLines, patched.taxId], [['Flat 2', '9 Elm Rd'], 'DE999'], 'only the fields sent change');
    const admin = ((await m.expectOk(m.admin('GET', '/customers'))) as any[]).find((c) => c.customerReferenceId === 'bill-1');
    assert.deepEqual([admin.billingAddressLines, admin.taxId], [['Flat 2', '9 Elm Rd'], 'DE999']);
    const adminPatched = await m.expectOk(m.admin('PATCH', `/customers/${admin.id}`, { taxId: '', billingAddressLines: null }));
    assert.deepEqual([adminPatched.billingAddressLines, adminPatched.taxId], [[], null], 'null or "" clears');
    assert.equal((await m.admin('PATCH', '/customers/00000000-0000-7000-8000-000000000000', { taxId: 'x' })).status, 404);

    for (const [body, message] of [
      [{ billingAddressLines: ['1', '2', '3', '4', '5', '6', '7'] }, 'billingAddressLines allows at most 6 lines of 200 characters'],
      [{ taxId: 'x'.repeat(65) }, 'taxId must be at most 64 characters'],
    ] as const) {
      for (const res of [
        await m.client('POST', '/customers', { customerReferenceId: 'bill-bad', email: 'bad@example.com', ...body }),
        await m.client('PATCH', '/customers/bill-1', body),
        await m.admin('PATCH', `/customers/${admin.id}`, body),
      ]) {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.message, message);
      }
    }
  });

  test('when invoices are finalised then each gets the next number of the year at that moment, with finalizedAt, and lines carry quantity and unit price', async () => {
    const before = (await allNumbers()).length;
    await m.customer('num-1');
    const first = await m.subscribe('num-1', paid.id);
    assert.equal(first.invoice.status, 'DUE');
    assert.equal(first.invoice.number, numberOf(before + 1));
    assert.equal(first.invoice.finalizedAt, '2026-03-10T09:00:00.000Z');
    assert.equal(first.invoice.customerReferenceId, 'num-1');
    assert.deepEqual(
      first.invoice.items.map((i: any) => [i.quantity, i.unitPrice, i.chargeAmount]),
      [[1, 49, 49]],
    );
    const free = await m.activePlan({ price: 0, features: [{ id: featureId }] });
    await m.customer('num-2');
    const zero = await m.subscribe('num-2', free.id);
    assert.equal(zero.invoice.status, 'PAID');
    assert.equal(zero.invoice.number, numberOf(before + 2), 'a PAID invoice is finalised too');
    // Paying keeps the number.
    const settled = await m.markPaid(first.invoice.id);
    assert.equal(settled.number, numberOf(before + 1));
    assert.equal(settled.finalizedAt, '2026-03-10T09:00:00.000Z');
  });

  test('when a draft in arrears is voided then it never gets a number; when one is closed then it gets the next number and usage lines their units and price', async () => {
    const arrears = await m.activePlan({ price: 12, billingTiming: 'IN_ARREARS', features: [{ id: featureId, value: { pricing: { model: 'usage', usage_unit_type: 'calls', price_per_unit: 0.0025 } } }] });
    await m.customer('draft-1');
    const voided = await m.subscribe('draft-1', arrears.id);
    assert.equal(voided.invoice.status, 'PENDING');
    assert.equal(voided.invoice.number, null);
    assert.equal(voided.invoice.finalizedAt, null);
    const countBefore = (await allNumbers()).length;
    assert.equal((await m.client('POST', `/subscriptions/cancellation/${voided.subscription.id}?cancelMode=IMMEDIATE`)).status, 200);
    const after = (await m.invoices('draft-1')).items.find((i: any) => i.id === voided.invoice.id);
    assert.equal(after.status, 'VOID');
    assert.equal(after.number, null, 'PENDING → VOID is never numbered');
    assert.equal((await allNumbers()).length, countBefore);

    await m.customer('draft-2');
    const open = await m.subscribe('draft-2', arrears.id);
    await m.event({ customerReferenceId: 'draft-2', featureKey, usageUnits: 1200, eventIdempotencyKey: 'draft-2-a' });
    svc.clock.set('2026-04-10T02:00:00Z');
    await svc.scheduler.run('subscription-cycle');
    const closed = (await m.invoices('draft-2')).items.find((i: any) => i.id === open.invoice.id);
    assert.equal(closed.status, 'DUE');
    // The rollover also billed the earlier subscriptions: the numbers stay 1 … n, nothing lost to the voided draft.
    const all = await allNumbers();
    assert.deepEqual(all, Array.from({ length: all.length }, (_, i) => numberOf(i + 1)));
    assert.ok(all.length > countBefore && all.slice(countBefore).includes(closed.number));
    assert.equal(closed.finalizedAt, '2026-04-10T02:00:00.000Z');
    const usage = closed.items.find((i: any) => i.description.startsWith('Usage for'));
    assert.deepEqual([usage.quantity, usage.unitPrice, usage.chargeAmount], [1200, 0.0025, 3]);
  });

  test('when 20 subscribes finalise at once then they get 20 consecutive numbers, each once', async () => {
    const before = await allNumbers();
    const refs = Array.from({ length: 20 }, (_, i) => `race-${i}`);
    for (const ref of refs) await m.customer(ref);
    const results = await Promise.all(refs.map((ref) => m.client('POST', '/subscriptions', { customerReferenceId: ref, planId: paid.id })));
    for (const r of results) assert.equal(r.status, 201, r.text);
    const numbers = results.map((r) => r.body.data.invoice.number as string).sort();
    assert.deepEqual(numbers, Array.from({ length: 20 }, (_, i) => numberOf(before.length + 1 + i)));
    assert.deepEqual(await allNumbers(), [...before, ...numbers].sort(), 'no gap, no repeat across the account');
  });

  test('when the prefix changes then only invoices finalised afterwards carry it, and the sequence goes on', async () => {
    const count = (await allNumbers()).length;
    await m.customer('pre-1');
    const a = await m.subscribe('pre-1', paid.id);
    await m.expectOk(settings({ invoiceNumberPrefix: 'acme' }));
    await m.customer('pre-2');
    const b = await m.subscribe('pre-2', paid.id);
    assert.equal(a.invoice.number, numberOf(count + 1));
    assert.equal(b.invoice.number, numberOf(count + 2, 2026, 'ACME'));
    const again = (await m.invoices('pre-1')).items[0];
    assert.equal(again.number, numberOf(count + 1), 'an issued number never changes');
    await m.expectOk(settings({ invoiceNumberPrefix: null }));
  });

  test('when the UTC year turns then the sequence starts again at 1 for the new year', async () => {
    svc.clock.set('2026-12-31T23:59:59Z');
    await m.customer('year-1');
    const last = await m.subscribe('year-1', paid.id);
    assert.match(last.invoice.number, /^INV-2026-\d{6}$/);
    svc.clock.set('2027-01-01T00:00:00Z');
    await m.customer('year-2');
    const first = await m.subscribe('year-2', paid.id);
    assert.equal(first.invoice.number, 'INV-2027-000001');
    await m.customer('year-3');
    assert.equal((await m.subscribe('year-3', paid.id)).invoice.number, 'INV-2027-000002');
  });
});
