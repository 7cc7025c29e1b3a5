import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../../packages/server/test/factories.js';
import { openConsole, type ConsoleSession } from './browser.js';

/**
 * Webhooks in the console (issue 33): an endpoint pointing at a receiver on loopback is added (its
 * secret shown once), sent a test event that the relay delivers (the delivery SUCCEEDED in the log,
 * with its attempt), its secret rotated, disabled and enabled, and deleted; each step read back
 * from the API.
 */
describe('console: webhooks (browser)', () => {
  let c: ConsoleSession;
  let receiver: Server;
  let url: string;
  const received: string[] = [];
  /** The receiver's answer: 200 "thanks", or 410 "gone". */
  let answer = 200;

  before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'thanks' : 'gone');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    c = await openConsole({ env: { APP_SPEND_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    await c.signIn();
  });
  after(async () => {
    await c.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const api = async (path: string) => {
    const res = await c.svc.http.get(`/api/v1/webhooks${path}`, { auth: c.account.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const endpoints = async () => (await api('/endpoints')) as { id: string; url: string; enabled: boolean; disabledReason: string | null; secretHint: string; eventTypes: string[]; description: string | null; previousSecretExpiresAt: string | null }[];
  const confirm = (button: string) => c.page.getByRole('alertdialog').getByRole('button', { name: button }).click();
  const table = () => c.page.getByRole('table', { name: 'Webhook endpoints' });

  test('when an endpoint is added then its secret is shown once and the API lists it with that secret’s hint', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints', exact: true }).click();
    await page.getByText('No webhook endpoint yet').waitFor();
    const form = page.getByRole('form', { name: 'New webhook endpoint' });
    await form.getByLabel('URL').fill('ftp://127.0.0.1/hook');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form.locator('.field-error').filter({ hasText: 'outbound URL refused' }).waitFor();
    assert.deepEqual(await endpoints(), []);
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('Description').fill('Billing sync');
    await form.getByLabel(/Event types/).selectOption(['customer.created', 'invoice.paid']);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('region', { name: `Signing secret of ${url}` });
    await secretBox.getByText('shown once').waitFor();
    const secret = await secretBox.getByTestId('secret-value').innerText();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    await table().getByText(url).waitFor();
    const [stored] = await endpoints();
    assert.equal(stored!.url, url);
    assert.equal(stored!.description, 'Billing sync');
    assert.deepEqual(stored!.eventTypes, ['customer.created', 'invoice.paid']);
    assert.equal(stored!.secretHint, `whsec_…${secret.slice(-4)}`);
    assert.match(await table().locator('tbody tr').first().innerText(), /customer\.created, invoice\.paid\s+ENABLED/);
    await secretBox.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('secret-value').count(), 0);
  });

  test('when the endpoint is edited then the row and the API show the new description and every event type', async () => {
    const { page } = c;
    await table().getByRole('button', { name: `Edit ${url}` }).click();
    const form = page.getByRole('form', { name: `Endpoint ${url}` });
    await form.getByLabel('Description').fill('Billing sync, all events');
    await form.getByLabel(/Event types/).selectOption([]);
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await form.waitFor({ state: 'detached' });
    await table().getByText('Billing sync, all events').waitFor();
    assert.match(await table().locator('tbody tr').first().innerText(), /\ball\s+ENABLED/);
    const [stored] = await endpoints();
    assert.equal(stored!.description, 'Billing sync, all events');
    assert.deepEqual(stored!.eventTypes, []);
  });

  test('when a test event is sent and the relay runs then the delivery SUCCEEDED with its attempt in the log', async () => {
    const { page } = c;
    await table().getByRole('button', { name: `Send test to ${url}` }).click();
    await page.getByRole('status').filter({ hasText: 'Test event sent' }).waitFor();
    c.svc.relay.start();
    const [endpoint] = await endpoints();
    for (let i = 0; ; i++) {
      const page1 = (await api(`/deliveries?endpointId=${endpoint!.id}`)) as { items: { status: string }[] };
      if (page1.items[0]?.status === 'SUCCEEDED') break;
      assert.ok(i < 200, 'the relay did not deliver');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(received.length, 1);
    assert.equal(JSON.parse(received[0]!).type, 'webhook.test');

    await table().getByRole('link', { name: `Deliveries of ${url}` }).click();
    const log = page.getByRole('table', { name: 'Webhook deliveries' });
    await log.getByText('SUCCEEDED').waitFor();
    const filters = page.getByRole('form', { name: 'Delivery filters' });
    await filters.getByLabel('Status').selectOption('FAILED');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No delivery matches these filters').waitFor();
    await filters.getByLabel('Status').selectOption('SUCCEEDED');
    await filters.getByLabel('Event type').selectOption('webhook.test');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('status') === 'SUCCEEDED' && u.searchParams.get('endpointId') === endpoint!.id);
    await log.getByRole('link', { name: 'webhook.test' }).click();
    await page.getByTestId('delivery-status').getByText('SUCCEEDED').waitFor();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    assert.match(await attempts.locator('tbody tr').innerText(), /^1\s+.+\s+\d+\s+SUCCEEDED\s+200\s+thanks\s+—$/);
    const [delivery] = ((await api(`/deliveries?endpointId=${endpoint!.id}`)) as { items: { id: string }[] }).items;
    const detail = await api(`/deliveries/${delivery!.id}`);
    assert.equal(detail.attempts.length, 1);
    assert.equal(detail.attempts[0].responseStatus, 200);
    const payload = await page.getByRole('region', { name: /Payload of event/ }).innerText();
    assert.equal(JSON.parse(payload).id, detail.eventId);
  });

  test('when the event is resent from the event log then a new delivery sends the same bytes again', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event log', exact: true }).click();
    const events = page.getByRole('table', { name: 'Webhook events' });
    await events.getByRole('button', { name: /^Payload of webhook\.test/ }).click();
    const form = page.getByRole('form', { name: /^Resend event/ });
    await form.getByLabel('Resend to endpoint').selectOption({ label: `${url} (Billing sync, all events)` });
    await form.getByRole('button', { name: 'Resend' }).click();
    await form.getByRole('status').filter({ hasText: 'Resent' }).waitFor();
    for (let i = 0; ; i++) {
      const deliveries = (await api('/deliveries')) as { items: { resend: boolean; status: string }[] };
      assert.equal(deliveries.items.length, 2);
      assert.equal(deliveries.items[0]!.resend, true);
      if (deliveries.items[0]!.status === 'SUCCEEDED') break;
      assert.ok(i < 300, 'the relay did not deliver the resend');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(received.length, 2);
    assert.equal(received[1], received[0], 'the same bytes again');
  });

  test('when the secret is rotated then the new one is shown once and the previous one keeps signing for 24 hours', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints', exact: true }).click();
    await table().getByRole('button', { name: `Rotate secret of ${url}` }).click();
    await page.getByRole('alertdialog').getByText('previous secret keeps signing for 24 hours').waitFor();
    await confirm('Rotate secret');
    const secret = await page.getByRole('region', { name: `New signing secret of ${url}` }).getByTestId('secret-value').innerText();
    const [stored] = await endpoints();
    assert.equal(stored!.secretHint, `whsec_…${secret.slice(-4)}`);
    assert.ok(stored!.previousSecretExpiresAt);
    await table().getByText('Previous secret signs until').waitFor();
  });

  test('when the receiver answers 410 Gone then the attempt shows it, the endpoint reads disabled (GONE), and enabling clears it', async () => {
    const { page } = c;
    answer = 410;
    await table().getByRole('button', { name: `Send test to ${url}` }).click();
    await page.getByRole('status').filter({ hasText: 'Test event sent' }).getByRole('link').click();
    await page.getByRole('heading', { name: 'Webhook delivery' }).waitFor();
    for (let i = 0; (await endpoints())[0]!.enabled; i++) {
      assert.ok(i < 200, 'the relay did not attempt the delivery');
      await new Promise((r) => setTimeout(r, 50));
    }
    // Read once the relay's transaction committed (a read on PGlite's one session may see it half done).
    await page.reload();
    await page.getByTestId('delivery-status').getByText('FAILED').waitFor();
    await page.getByText('Last error: endpoint disabled').waitFor();
    const attempts = page.getByRole('table', { name: 'Attempts' });
    assert.match(await attempts.locator('tbody tr').innerText(), /^1\s+.+\s+\d+\s+FAILED\s+410\s+gone\s+—$/);
    const [stored] = await endpoints();
    assert.equal(stored!.disabledReason, 'GONE');
    answer = 200;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints', exact: true }).click();
    await page.reload();
    await table().getByText('the receiver answered 410 Gone').waitFor();
    await table().getByRole('button', { name: `Enable ${url}` }).click();
    await table().getByText('ENABLED', { exact: true }).waitFor();
    const [enabled] = await endpoints();
    assert.equal(enabled!.enabled, true);
    assert.equal(enabled!.disabledReason, null);
  });

  test('when a VIEWER opens the webhook pages then it reads them, filters the log, and every change is disabled naming the role it needs', async () => {
    const invited = await c.svc.http.post('/api/v1/users', { auth: c.account.token, body: { username: 'watcher', role: 'VIEWER' } });
    assert.equal(invited.status, 201, invited.text);
    const context = await c.browser.newContext({ baseURL: c.svc.baseUrl, viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const viewer = await context.newPage();
    viewer.setDefaultTimeout(15_000);
    try {
      await viewer.goto('/webhooks/endpoints');
      await viewer.getByLabel('Username').fill('watcher');
      await viewer.getByLabel('Password').fill(invited.body.data.password);
      await viewer.getByRole('button', { name: 'Sign in' }).click();
      const rows = viewer.getByRole('table', { name: 'Webhook endpoints' });
      await rows.getByText(url).waitFor();
      assert.match(await viewer.getByRole('form', { name: 'New webhook endpoint' }).innerText(), /Needs the OWNER or ADMIN role/);
      for (const name of [`Edit ${url}`, `Send test to ${url}`, `Rotate secret of ${url}`, `Disable ${url}`, `Delete ${url}`]) {
        assert.equal(await rows.getByRole('button', { name }).isDisabled(), true, name);
      }
      await viewer.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event log', exact: true }).click();
      const filters = viewer.getByRole('form', { name: 'Event filters' });
      await filters.getByLabel('Event type').selectOption('webhook.test');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await viewer.waitForURL((u) => u.searchParams.get('type') === 'webhook.test');
      const events = viewer.getByRole('table', { name: 'Webhook events' });
      await events.getByRole('button', { name: /^Payload of webhook\.test/ }).first().click();
      assert.equal(await viewer.getByRole('form', { name: /^Resend event/ }).getByRole('button', { name: 'Resend' }).isDisabled(), true);
    } finally {
      await context.close();
    }
  });

  test('when an event carries an amount a double cannot hold then its payload shows every digit the API sent', async () => {
    const { page } = c;
    const m = monetization(c.svc, c.account);
    const wallet = await m.wallet(100, false);
    // 18 significant digits: through a double it would read 123456789012.12346.
    const granted = await c.svc.http.post('/api/v1/monetization/credits/grants', { auth: c.account.token, rawBody: `{"creditPoolId":"${wallet.poolId}","amount":123456789012.123456,"grantType":"MANUAL"}`, headers: { 'content-type': 'application/json' } });
    assert.equal(granted.status, 201, granted.text);
    const raw = await c.svc.http.get('/api/v1/webhooks/events?type=credits.granted&limit=1', { auth: c.account.token });
    const sent = /"object":\{[^{}]*"amount":(\d+(?:\.\d+)?)/.exec(raw.text)?.[1];
    assert.equal(sent, '123456789012.123456');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event log', exact: true }).click();
    const filters = page.getByRole('form', { name: 'Event filters' });
    await filters.getByLabel('Event type').selectOption('credits.granted');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('type') === 'credits.granted');
    const events = page.getByRole('table', { name: 'Webhook events' });
    await events.getByRole('button', { name: /^Payload of credits\.granted/ }).first().click();
    const shown = await page.getByRole('region', { name: /^Payload of event/ }).innerText();
    assert.match(shown, /"amount": 123456789012\.123456,/);
  });

  test('when the logs are filtered by time then since and until reach the URL and the API as instants, and a window without events lists none', async () => {
    const { page } = c;
    // The page runs in UTC: the datetime-local text is the instant's own minutes.
    const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
    const now = c.svc.clock.now().getTime();
    const [firstEvent] = (await api('/events?limit=200')).items.slice(-1) as { createdAt: string }[];
    const start = new Date(firstEvent!.createdAt).getTime();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deliveries', exact: true }).click();
    const deliveries = page.getByRole('table', { name: 'Webhook deliveries' });
    await deliveries.locator('tbody tr').first().waitFor();
    const filters = page.getByRole('form', { name: 'Delivery filters' });
    await filters.getByLabel('Since').fill(local(now + 86_400_000));
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('since') === new Date(Math.floor((now + 86_400_000) / 60_000) * 60_000).toISOString());
    await page.getByText('No delivery matches these filters').waitFor();
    await filters.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((u) => !u.searchParams.has('since'));
    await deliveries.locator('tbody tr').first().waitFor();
    assert.equal(await filters.getByLabel('Since').inputValue(), '');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Event log', exact: true }).click();
    const events = page.getByRole('table', { name: 'Webhook events' });
    const eventFilters = page.getByRole('form', { name: 'Event filters' });
    await eventFilters.getByLabel('Until').fill(local(start - 60_000));
    await eventFilters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.has('until'));
    await page.getByText('No event matches these filters.').waitFor();
    const window = { since: local(start - 60_000), until: local(now + 120_000) };
    await eventFilters.getByLabel('Since').fill(window.since);
    await eventFilters.getByLabel('Until').fill(window.until);
    await eventFilters.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('since') === `${window.since}:00.000Z` && u.searchParams.get('until') === `${window.until}:00.000Z`);
    await events.locator('tbody tr').first().waitFor();
    const listed = await events.locator('tbody tr').count();
    const fromApi = (await api(`/events?since=${window.since}:00.000Z&until=${window.until}:00.000Z&limit=25`)).items.length;
    assert.equal(listed, fromApi, 'the page lists what the API answers for the window');
    // A reload keeps the window, shown in the user's zone.
    await page.reload();
    assert.equal(await eventFilters.getByLabel('Since').inputValue(), window.since);
  });

  test('when the endpoint is disabled, enabled and deleted then the API agrees at each step', async () => {
    const { page } = c;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints', exact: true }).click();
    await table().getByRole('button', { name: `Disable ${url}` }).click();
    await confirm('Disable endpoint');
    await table().getByText('DISABLED', { exact: true }).waitFor();
    assert.equal((await endpoints())[0]!.disabledReason, 'MANUAL');
    await table().getByText('by an operator').waitFor();
    await table().getByRole('button', { name: `Enable ${url}` }).click();
    await table().getByText('ENABLED', { exact: true }).waitFor();
    assert.equal((await endpoints())[0]!.enabled, true);

    await table().getByRole('button', { name: `Delete ${url}` }).click();
    await confirm('Delete endpoint');
    await page.getByText('No webhook endpoint yet').waitFor();
    assert.deepEqual(await endpoints(), []);
  });
});
