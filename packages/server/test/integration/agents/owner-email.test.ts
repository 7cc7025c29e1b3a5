import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StripeFake } from '../../fakes/stripe/server.js';
import { connectStripe, startServiceWithStripe } from '../../fakes/stripe/with-service.js';
import { monetization } from '../../factories.js';
import { backend, createTestAccount, type TestService } from '../../harness.js';

const STRIPE_KEY = 'sk_test_tallyOwnerEmail0000001';

/**
 * The owner e-mail and the processor customer (api-contract-agent-v2.md §4.5), through HTTP with the
 * Stripe fake: when PUT …/owner gives a customer without e-mail the owner address, its processor
 * customer, if there is one, gets it after the commit; otherwise the processor is not called.
 */
describe(`owner e-mail pushed to the processor customer on ${backend}`, () => {
  let svc: TestService;
  let fake: StripeFake;
  let close: () => Promise<void>;
  let acct: Awaited<ReturnType<typeof createTestAccount>>;
  let m: ReturnType<typeof monetization>;
  let n = 0;

  const putOwner = (ref: string, auth: string, email: string) => svc.http.put(`/api/v1/client/customers/${ref}/owner`, { auth, body: { email } });
  const customerRow = (ref: string) =>
    svc.ctx.db.selectFrom('customers').selectAll().where('account_id', '=', acct.accountId).where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
  /** A customer with no e-mail: one a usage event created. */
  const withoutEmail = async () => {
    const ref = `owner-${++n}-${acct.accountId.slice(-6)}`;
    await m.event({ customerReferenceId: ref, featureKey: 'anything', usageUnits: 1 });
    assert.equal((await customerRow(ref)).email, null);
    return ref;
  };
  /** Makes the customer's processor customer (a card setup does) and returns its id at the fake. */
  const processorCustomerOf = async (ref: string) => {
    await m.expectOk(m.client('POST', `/customers/${ref}/payment-methods/setup-intent`));
    const c = await customerRow(ref);
    const link = await svc.ctx.db.selectFrom('processor_customers').selectAll().where('account_id', '=', acct.accountId).where('customer_id', '=', c.id).executeTakeFirstOrThrow();
    return link.processor_customer_id;
  };
  const emailAtProcessor = (id: string) => fake.get(STRIPE_KEY, id)!.email;
  const updatesOf = (id: string) => fake.calls(`/v1/customers/${id}`, 'POST').length;

  before(async () => {
    ({ svc, fake, close } = await startServiceWithStripe());
    acct = await createTestAccount(svc);
    m = monetization(svc, acct);
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
  });
  after(() => close());

  test('when a customer key nominates an owner for a customer without e-mail then the processor customer gets that e-mail; a repeat calls the processor no more', async () => {
    const ref = await withoutEmail();
    const key = await m.customerKey(ref);
    const pc = await processorCustomerOf(ref);
    assert.equal(emailAtProcessor(pc), null, 'made while the customer had no e-mail');
    const res = await putOwner(ref, key, '  Owner@Example.COM ');
    assert.equal(res.status, 200, res.text);
    assert.equal((await customerRow(ref)).email, 'owner@example.com');
    assert.equal(emailAtProcessor(pc), 'owner@example.com');
    const updates = updatesOf(pc);
    assert.equal((await putOwner(ref, key, 'owner@example.com')).status, 200);
    assert.equal(updatesOf(pc), updates, 'nothing changed: no processor call');
  });

  test('when the customer has an e-mail then the owner is stored and the processor customer keeps the e-mail it has, uncalled', async () => {
    const ref = (await m.customer()).customerReferenceId as string;
    const pc = await processorCustomerOf(ref);
    const res = await putOwner(ref, acct.apiKey, 'boss@example.com');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.owner_email, 'boss@example.com');
    assert.equal(updatesOf(pc), 0);
    assert.equal(emailAtProcessor(pc), `${ref}@example.com`);
  });

  test('when the customer has no processor customer then nothing is sent; the one made later carries the e-mail', async () => {
    const ref = await withoutEmail();
    const before = fake.requests.length;
    assert.equal((await putOwner(ref, acct.apiKey, 'later@example.com')).status, 200);
    assert.equal(fake.requests.length, before, 'no processor call');
    assert.equal(emailAtProcessor(await processorCustomerOf(ref)), 'later@example.com');
  });

  test('when the processor refuses the e-mail then PUT owner still answers 200 with the e-mail stored (the change committed first)', async () => {
    const ref = await withoutEmail();
    const pc = await processorCustomerOf(ref);
    fake.failNext({ method: 'POST', path: `/v1/customers/${pc}` }, { status: 400 });
    const res = await putOwner(ref, acct.apiKey, 'refused@example.com');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.owner_email, 'refused@example.com');
    assert.equal((await customerRow(ref)).email, 'refused@example.com');
    assert.equal(updatesOf(pc), 1, 'tried once');
    assert.equal(emailAtProcessor(pc), null);
  });
});
