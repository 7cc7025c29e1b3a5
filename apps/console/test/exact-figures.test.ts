import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { StripeFake } from '../../../packages/server/test/fakes/stripe/server.js';
import { connectStripe } from '../../../packages/server/test/fakes/stripe/with-service.js';
import { openConsole, type ConsoleSession } from './browser.js';
import { figureProblems } from './figures.js';

const STRIPE_KEY = 'sk_test_tallyExactFigures0000001';

/**
 * Exact numbers in the console and the portal (issue 29 item 7), and a portal that offers only what
 * works (item 8). The data is chosen so that float arithmetic would show: a balance of 900.997 burnt
 * at 99.003 a day (through doubles the projection reads 801.9939999999999), event revenue of
 * 0.0045 (a bare decimal, not money), a CAPTURE whose ledger amount is 0, an invoice in yen.
 * Every page walked is checked by `figureProblems`: each figure's decimals against its type.
 */
describe('console and portal: exact figures, top-up only where it works (browser)', () => {
  let c: ConsoleSession;
  let fake: StripeFake;
  let m: ReturnType<typeof monetization>;
  let accountName: string;
  let walletRef: string;

  before(async () => {
    const started: { c?: ConsoleSession } = {};
    fake = await StripeFake.start({ now: () => started.c!.svc.clock.now() });
    c = await openConsole({ now: '2026-03-10T09:00:00Z', env: { APP_STRIPE_API_BASE: fake.baseUrl, APP_STRIPE_MAX_NETWORK_RETRIES: '0' } });
    started.c = c;
    m = monetization(c.svc, c.account);
    accountName = (await c.svc.ctx.db.selectFrom('accounts').select('name').where('id', '=', c.account.accountId).executeTakeFirstOrThrow()).name;

    const chat = await m.feature({ key: 'chat' });
    const plan = await m.activePlan({ price: '19.99', key: 'pro', features: [{ id: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 0.0015 } } }] });
    await m.customer('acme');
    await m.markPaid((await m.subscribe('acme', plan.id)).invoice.id);
    for (let i = 0; i < 3; i++) assert.equal((await m.event({ customerReferenceId: 'acme', featureKey: 'chat', usageUnits: 3, eventIdempotencyKey: `e-${i}` })).status, 201);

    const yen = await m.expectOk(m.admin('POST', '/plans', { key: 'yen', name: 'Yen plan', description: 'In yen', priceAmount: 1500, currency: 'JPY', intervalMonths: 1 }), 201);
    await m.expectOk(m.admin('POST', '/rules/plan-features', { planId: yen.id, featureId: chat.id, value: { pricing: { model: 'usage', usage_unit_type: 'messages', price_per_unit: 1 } } }), 201);
    await m.expectOk(m.admin('PATCH', `/plans/${yen.id}`, { status: 'ACTIVE' }));
    await m.customer('tokyo');
    await m.markPaid((await m.subscribe('tokyo', yen.id)).invoice.id);

    await m.creditModel({ denomination: 'tokens' });
    const customers = await m.expectOk<{ id: string; customerReferenceId: string }[]>(m.admin('GET', '/customers'));
    const acme = customers.find((x) => x.customerReferenceId === 'acme')!;
    const pool = await m.expectOk(m.admin('POST', '/credits/pools', { name: 'Main pool', denomination: 'tokens', customerId: acme.id }), 201);
    await m.expectOk(m.admin('POST', '/credits/grants', { creditPoolId: pool.id, amount: 1000, grantType: 'MANUAL' }), 201);
    await m.expectOk(m.admin('POST', '/credits/deductions', { creditPoolId: pool.id, amount: '99.003', description: 'batch job' }));

    // A reservation captured from its hold: the CAPTURE row's amount is 0, its heldChange −20.125.
    const wallet = await m.wallet(100, true);
    walletRef = wallet.ref;
    const held = await m.expectOk(m.client('POST', '/credits/reservations', { customerReferenceId: wallet.ref, denomination: wallet.denomination, amount: 50, idempotencyKey: `k-${randomBytes(4).toString('hex')}` }), 201);
    await m.expectOk(m.client('POST', `/credits/reservations/${held.id}/capture`, { amount: '20.125' }));
    await c.signIn();
  });
  after(async () => {
    await c.close();
    await fake.close();
  });

  const assertNoProblems = async (what: string) => {
    const problems = await figureProblems(c.page);
    assert.deepEqual(problems, [], `${what}:\n${problems.join('\n')}`);
  };

  /** The burndown table's rows (day, balance, projected), cells joined by one space. */
  const burndownRows = async (pool: ReturnType<ConsoleSession['page']['getByRole']>) =>
    pool.getByRole('table', { name: 'Burndown' }).locator('tbody tr').evaluateAll((rows) =>
      rows.map((r) => Array.from(r.children).map((cell) => (cell.textContent ?? '').trim()).filter(Boolean).join(' ')),
    );

  const openCustomer = async (ref: string) => {
    await c.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers' }).click();
    await c.page.getByRole('link', { name: ref, exact: true }).click();
    await c.page.getByRole('heading', { name: ref, level: 1 }).waitFor();
  };

  test('when the overview opens then MRR and the revenue columns are money in the account currency with its minor units', async () => {
    const { page } = c;
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const features = page.getByRole('table', { name: 'Top features' });
    // 3 events × 3 units × 0.0015 = 0.0135 of revenue: $0.01, not a bare 0 or 0.0135.
    await features.getByText('$0.01', { exact: true }).waitFor();
    assert.match(await features.innerText(), /chat\s+3\s+9\s+\$0\.01/);
    assert.match(await page.getByTestId('mrr').innerText(), /\$19\.99/);
    assert.match(await page.getByTestId('mrr').innerText(), /¥1,500/);
    await assertNoProblems('overview');
  });

  test("when a customer's page opens then the pool, its burndown and ledger show exact credits and the invoices money", async () => {
    const { page } = c;
    await openCustomer('acme');
    const pool = page.getByRole('article', { name: 'Pool Main pool' });
    await pool.getByRole('figure', { name: 'Burndown' }).locator('canvas').waitFor();
    assert.equal(await pool.getByTestId('pool-balance').innerText(), '900.997 tokens');
    const burndown = await burndownRows(pool);
    // The projection at 99.003 a day, exact: 801.994 (a double gives 801.9939999999999).
    assert.ok(burndown.includes('2026-03-11 801.994'), burndown.join('\n'));
    assert.ok(burndown.includes('2026-03-13 603.988'), burndown.join('\n'));
    assert.match(await page.getByRole('table', { name: 'Invoices' }).innerText(), /\$19\.99/);
    await assertNoProblems('customer acme');

    await openCustomer('tokyo');
    assert.match(await page.getByRole('table', { name: 'Invoices' }).innerText(), /¥1,500(?![.\d])/);
    await assertNoProblems('customer tokyo');
  });

  test('when a reservation was captured then its CAPTURE row shows the captured credits, not 0', async () => {
    const { page } = c;
    await openCustomer(walletRef);
    const ledger = page.locator('table[aria-label^="Ledger of"]');
    await ledger.waitFor();
    const rows = await ledger.locator('tbody tr').allInnerTexts();
    // Credits, held change, balance before, balance after.
    assert.ok(rows.some((r) => /CAPTURE\s+-20\.125\s+-20\.125\s+50\s+50/.test(r)), rows.join('\n'));
    assert.ok(rows.some((r) => /HOLD\s+-50\s+50\s+100\s+50/.test(r)), rows.join('\n'));
    assert.ok(rows.some((r) => /RELEASE\s+29\.875\s+-29\.875\s+50\s+79\.875/.test(r)), rows.join('\n'));
    await assertNoProblems(`customer ${walletRef}`);
  });

  test('when the credits page opens then prices per credit show their currency and every digit of the rate', async () => {
    const { page } = c;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: '2026-04-01T00:00:00Z', entries: [{ denomination: 'tokens', pricePerCredit: '0.0125' }] }), 201);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Credits' }).click();
    const prices = page.getByRole('table', { name: 'Price book' });
    await prices.waitFor();
    assert.match(await prices.innerText(), /tokens\s+USD\s+\$0\.0125\s/);
    await assertNoProblems('credits');
    await page.getByRole('button', { name: 'Delete scheduled price tokens 0.0125' }).click();
    await page.getByText('No price per credit yet.').waitFor();
  });

  test('when the events page opens then no figure shows float digits or more decimals than stored, and Revenue is in the account currency', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    await page.getByRole('table', { name: 'Events' }).waitFor();
    await assertNoProblems('events');
  });

  /** Opens a fresh portal link of acme (a reload: the console's in-memory login is gone after it). */
  const openPortal = async () => {
    const link = await m.expectOk(m.client('POST', '/customers/acme/portal-sessions', { allowPurchase: true }), 201);
    await c.page.goto(link.url);
    const pool = c.page.getByRole('article', { name: 'Pool Main pool' });
    await pool.getByRole('figure', { name: 'Burndown' }).locator('canvas').waitFor();
    await c.page.getByRole('table', { name: 'Invoices' }).waitFor();
    return pool;
  };

  test('when neither a price nor a processor is set up then the portal offers no top-up, and its figures are exact', async () => {
    const { page } = c;
    const pool = await openPortal();
    assert.equal(await pool.getByTestId('pool-balance').innerText(), '900.997 tokens');
    assert.ok((await burndownRows(pool)).includes('2026-03-11 801.994'));
    assert.match(await pool.getByRole('table', { name: 'Recent activity of Main pool' }).innerText(), /-99\.003\s+900\.997\s+batch job/);
    assert.equal(await page.getByRole('form', { name: 'Top up' }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Top up' }).count(), 0);
    await assertNoProblems('portal');
  });

  test('when a price is published but no processor is connected then the portal still offers no top-up', async () => {
    const { page } = c;
    await m.expectOk(m.admin('POST', '/credits/prices/publish', { effectiveFrom: new Date(c.svc.clock.now().getTime() + 1000).toISOString(), entries: [{ denomination: 'tokens', pricePerCredit: '0.0125' }] }), 201);
    c.svc.clock.advanceMs(2000);
    await openPortal();
    assert.equal(await page.getByRole('form', { name: 'Top up' }).count(), 0);
  });

  test('when a price is published and a processor connected then the portal offers a top-up at that price', async () => {
    const { page } = c;
    await connectStripe(m, STRIPE_KEY, 'PAYMENT_PASS_THROUGH');
    await openPortal();
    const form = page.getByRole('form', { name: 'Top up' });
    await form.waitFor();
    assert.equal(await form.getByTestId('top-up-price').innerText(), '$0.0125 per credit');
    // No saved card: a hosted checkout, its amount in money.
    await form.getByLabel('Credits').fill('100');
    await form.getByRole('button', { name: 'Buy credits' }).click();
    await page.getByRole('status').filter({ hasText: 'to pay' }).waitFor();
    assert.match(await page.getByRole('status').filter({ hasText: 'to pay' }).innerText(), /^\$1\.25 to pay/);
    await assertNoProblems('portal with top-up');
  });

  test("when a top-up fails for a reason meant for the operator then the customer reads whom to contact, not the operator's message", async () => {
    const { page } = c;
    const form = page.getByRole('form', { name: 'Top up' });
    // The processor is switched off while the page is open: the purchase answers 402 with no checkout.
    await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'NONE' }));
    try {
      await form.getByLabel('Credits').fill('200');
      await form.getByRole('button', { name: 'Buy credits' }).click();
      const alert = form.getByRole('alert');
      await alert.waitFor();
      const text = await alert.innerText();
      assert.match(text, new RegExp(`Top-ups are not available yet; contact ${accountName}\\.`));
      assert.doesNotMatch(text, /checkoutUrl|principal|operator|price book/i);
      assert.match(text, /requestId [0-9a-f-]{36}/);
    } finally {
      await m.expectOk(m.api('PATCH', '/api/v1/tanso/account-settings', { stripeMode: 'PAYMENT_PASS_THROUGH' }));
    }
  });
});
