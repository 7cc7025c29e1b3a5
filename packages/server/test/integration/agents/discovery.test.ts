import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';
import { setCatalogSettings } from './agent-helpers.js';

const DOCUMENTS = ['/llms.txt', '/.well-known/agent.json', '/agent-signup.md', '/.well-known/agent-skills/index.json'];
const CONTENT_TYPES: Record<string, RegExp> = {
  '/llms.txt': /^text\/plain; charset=utf-8$/,
  '/.well-known/agent.json': /^application\/json/,
  '/agent-signup.md': /^text\/markdown; charset=utf-8$/,
  '/.well-known/agent-skills/index.json': /^application\/json/,
};

/** Status, headers but the per-request ones, and the body without its requestId: what must be identical. */
const comparable = (res: HttpResponse) => {
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !['x-request-id', 'date', 'cache-control', 'content-length'].includes(k)));
  const { requestId: _r, ...error } = res.body.error;
  return { status: res.status, headers, body: { ...res.body, error } };
};

/** Discovery documents and checkout return pages (api-contract-agent-v2.md §5). */
describe('agent discovery documents (contract agent-v2 §5)', () => {
  let svc: TestService;
  let base: string;

  before(async () => {
    // A console build, so the service's own address (agent.json `url`) answers as it does when deployed.
    const consoleDir = mkdtempSync(join(tmpdir(), 'tally-console-'));
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
    svc = await startTestService({ consoleDir });
    base = svc.http.baseUrl;
  });
  after(() => svc.close());

  /** An account with its catalog at `slug`, optionally an ACTIVE plan (free or not) and its signup on. */
  async function publish(slug: string, options: { plan?: 'free' | 'paid' | 'none'; signup?: boolean; open?: boolean } = {}) {
    const acct = await createTestAccount(svc);
    const m = monetization(svc, acct);
    const feature = await m.feature();
    const plan = options.plan === 'none' ? null : await m.activePlan({ key: 'starter', price: options.plan === 'paid' ? 9 : 0, features: [{ id: feature.id, value: {} }] });
    await setCatalogSettings(svc, acct, {
      slug,
      publicCatalogEnabled: options.open ?? true,
      ...(plan && options.plan !== 'paid' ? { agentSignupDefaultPlanId: plan.id, agentSignupEnabled: options.signup ?? false } : {}),
    });
    return { ...acct, m, plan };
  }

  test('when no catalog is published then every document is the 404 of pricing.json, no-store, and shows at once when one opens', async () => {
    await publish('closed-shop', { open: false });
    await publish('empty-shop', { plan: 'none' });
    const pricing404 = await svc.http.get('/public/v1/catalog/no-such-shop/pricing.json');
    assert.equal(pricing404.status, 404);
    for (const path of DOCUMENTS) {
      const res = await svc.http.get(path);
      assert.equal(res.status, 404, `${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'not_found');
      assert.equal(res.body.error.message, 'No catalog at this address');
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
      assert.deepEqual(comparable(res), comparable(pricing404), `${path}: the same answer as pricing.json's 404`);
    }
    const late = await publish('late-shop');
    assert.equal((await svc.http.get('/llms.txt')).status, 200, 'a catalog switched on is listed at once');
    await setCatalogSettings(svc, late, { slug: 'late-shop', publicCatalogEnabled: false });
    assert.equal((await svc.http.get('/llms.txt')).status, 404, 'and gone at once when switched off');
  });

  describe('with published catalogs', () => {
    const docs: Record<string, HttpResponse> = {};

    before(async () => {
      await publish('zeta-shop', { signup: true });
      await publish('alpha-shop');
      await publish('mid-shop', { plan: 'paid' });
      await publish('beta-shop', { signup: false });
      for (const path of DOCUMENTS) docs[path] = await svc.http.get(path, { headers: { accept: 'text/html' } });
    });

    test('when a document is read (any Accept) then 200, its content type, cached 5 minutes', async () => {
      for (const path of DOCUMENTS) {
        const res = docs[path]!;
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        assert.match(res.headers.get('content-type') ?? '', CONTENT_TYPES[path]!, path);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=300', path);
        const xml = await svc.http.get(path, { headers: { accept: 'application/xml' } });
        assert.equal(xml.status, 200, `${path}: never 406`);
        assert.equal(xml.text, res.text);
      }
    });

    test('when llms.txt is read then a heading, a summary, the catalogs in slug order with listed signups, usage and the specification', () => {
      const text = docs['/llms.txt']!.text;
      const lines = text.split('\n');
      assert.match(lines[0]!, /^# \S/);
      assert.match(lines[2]!, /^> \S/);
      for (const heading of ['## Catalogs', '## How to use this API', '## Specification']) assert.ok(lines.includes(heading), heading);
      const catalogLines = lines.filter((l) => l.startsWith('- [') && l.includes('/public/v1/catalog/'));
      assert.deepEqual(
        catalogLines.map((l) => /^- \[([^\]]+)\]\(([^)]+)\)/.exec(l)!.slice(1)),
        [
          ['alpha-shop pricing', `${base}/public/v1/catalog/alpha-shop/pricing.json`],
          ['beta-shop pricing', `${base}/public/v1/catalog/beta-shop/pricing.json`],
          ['mid-shop pricing', `${base}/public/v1/catalog/mid-shop/pricing.json`],
          ['zeta-shop pricing', `${base}/public/v1/catalog/zeta-shop/pricing.json`],
          ['zeta-shop signup', `${base}/public/v1/catalog/zeta-shop/signup`],
        ],
      );
      assert.match(catalogLines.at(-1)!, /POST \{"email": /);
      for (const needle of ['X-API-Key', `${base}/api/v1/client/customers/{referenceId}/status`, '`gate`', '`action`', '`url`', '`poll`', '`retry_after`',
        `${base}/api/v1/client/entitlements/`, `${base}/api/v1/client/events`, `${base}/api/v1/client/customers/{referenceId}/usage`, `${base}/api/v1/client/credits/purchases`, `${base}/api/v1/client/subscriptions`,
        `(${base}/v3/api-docs)`, `(${base}/swagger-ui.html)`, `(${base}/.well-known/agent.json)`, `(${base}/agent-signup.md)`, `(${base}/.well-known/agent-skills/index.json)`]) {
        assert.ok(text.includes(needle), needle);
      }
      for (const closed of ['closed-shop', 'empty-shop', 'late-shop']) assert.ok(!text.includes(closed), `${closed} is not published`);
    });

    test('when agent.json is read then its keys are in the contract order with the first signup as the key source', () => {
      const doc = docs['/.well-known/agent.json']!.body;
      assert.deepEqual(Object.keys(doc), ['name', 'description', 'url', 'catalogs', 'agent_signup', 'auth', 'payment', 'openapi', 'docs', 'runbook', 'skills']);
      assert.equal(doc.url, base);
      assert.deepEqual(doc.catalogs, [
        { slug: 'alpha-shop', pricing: `${base}/public/v1/catalog/alpha-shop/pricing.json` },
        { slug: 'beta-shop', pricing: `${base}/public/v1/catalog/beta-shop/pricing.json` },
        { slug: 'mid-shop', pricing: `${base}/public/v1/catalog/mid-shop/pricing.json` },
        { slug: 'zeta-shop', pricing: `${base}/public/v1/catalog/zeta-shop/pricing.json`, signup: `${base}/public/v1/catalog/zeta-shop/signup` },
      ]);
      assert.equal(doc.agent_signup, true);
      assert.deepEqual(doc.auth, { scheme: 'api-key', header: 'X-API-Key', obtained_from: `${base}/public/v1/catalog/zeta-shop/signup` });
      assert.equal(doc.payment.protocol, 'http-402');
      for (const field of ['error.gate', 'error.action', 'error.url', 'error.poll', 'error.retry_after']) assert.ok(doc.payment.description.includes(field), field);
      assert.deepEqual([doc.openapi, doc.docs, doc.runbook, doc.skills], [`${base}/v3/api-docs`, `${base}/llms.txt`, `${base}/agent-signup.md`, `${base}/.well-known/agent-skills/index.json`]);
    });

    test('when the runbook and the skills index are read then {base} is filled in, {slug} is the first signup catalog, each catalog is listed', () => {
      const md = docs['/agent-signup.md']!.text;
      assert.ok(!md.includes('{base}'), 'no literal {base}');
      assert.ok(!md.includes('{slug}'), '{slug} replaced');
      assert.ok(md.includes(`curl ${base}/public/v1/catalog/zeta-shop/pricing.json`));
      assert.ok(md.includes(`curl -X POST ${base}/public/v1/catalog/zeta-shop/signup`));
      assert.ok(md.includes(`- \`alpha-shop\`: pricing ${base}/public/v1/catalog/alpha-shop/pricing.json; signup not enabled`));
      assert.ok(md.includes(`- \`zeta-shop\`: pricing ${base}/public/v1/catalog/zeta-shop/pricing.json; signup ${base}/public/v1/catalog/zeta-shop/signup`));
      for (const gate of ['complete_checkout', 'nominate_owner', 'wait', 'raise_spend_cap', 'raise_mandate', 'use_own_reference', 'request_scope', 'scope_denied', 'budget_exceeded']) assert.ok(md.includes(gate), gate);
      const skills = docs['/.well-known/agent-skills/index.json']!.body as { skills: { name: string; description: string; url: string }[] };
      assert.deepEqual(skills.skills.map((s) => [s.name, s.url]), [['agent-signup', `${base}/agent-signup.md`]]);
      assert.deepEqual(Object.keys(skills.skills[0]!), ['name', 'description', 'url']);
      assert.match(skills.skills[0]!.description, /\S/);
    });

    test('when every link a document lists is followed then it answers (a signup link to a POST with an e-mail)', async () => {
      const links = new Set<string>();
      for (const m of docs['/llms.txt']!.text.matchAll(/\]\(([^)]+)\)/g)) links.add(m[1]!);
      const urlsIn = (value: unknown): string[] =>
        typeof value === 'string' ? (value.startsWith('http://') || value.startsWith('https://') ? [value] : []) : value && typeof value === 'object' ? Object.values(value).flatMap(urlsIn) : [];
      for (const path of ['/.well-known/agent.json', '/.well-known/agent-skills/index.json']) for (const url of urlsIn(docs[path]!.body)) links.add(url);
      const md = docs['/agent-signup.md']!.text;
      for (const m of md.matchAll(/(?:pricing|signup|OpenAPI:|API reference:|Manifest:|Index:) (http\S+?)(?:;|$)/gm)) links.add(m[1]!);
      assert.ok(links.size >= 12, `links found: ${[...links].join(' ')}`);
      for (const url of links) {
        assert.ok(url.startsWith(base), url);
        const res = url.endsWith('/signup')
          ? await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'agent@example.com' }) })
          : await fetch(url);
        assert.equal(res.status, url.endsWith('/signup') ? 201 : 200, `${url}: ${res.status}`);
      }
    });

    test('when query or headers are sent then nothing of them is written into a document', async () => {
      for (const path of DOCUMENTS) {
        const res = await svc.http.get(`${path}?q=injected-query`, { headers: { 'x-evil': 'injected-header', referer: 'http://injected.example/' } });
        assert.equal(res.status, 200);
        assert.ok(!res.text.includes('injected'), path);
        assert.equal(res.text, docs[path]!.text);
      }
    });
  });
});

describe('checkout return pages (contract agent-v2 §5.6)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  const PAID = 'Your payment went through. You can close this tab; your agent will see the change within a minute.';
  const SAVED = 'Your payment details were saved. You can close this tab; your agent will see the change within a minute.';
  const LEFT = 'You left the payment page before finishing. You can close this tab, or go back to your agent for a new link.';

  test('when a human lands on a return page then 200 HTML, no-store, noindex, its fixed title and text, with no catalog at all', async () => {
    const cases: [string, string, string][] = [
      ['/public/checkout/complete?kind=payment', "You're all set", PAID],
      ['/public/checkout/complete?kind=setup', "You're all set", SAVED],
      ['/public/checkout/complete', "You're all set", SAVED],
      ['/public/checkout/complete?kind=payment&kind=payment', "You're all set", SAVED],
      ['/public/checkout/complete?kind=%3Cscript%3E', "You're all set", SAVED],
      ['/public/checkout/cancelled', 'Nothing was charged', LEFT],
      ['/public/checkout/cancelled?kind=payment', 'Nothing was charged', LEFT],
    ];
    for (const [path, title, text] of cases) {
      const res = await svc.http.get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.ok(res.text.includes('<meta name="robots" content="noindex">'), path);
      assert.ok(res.text.includes(`<title>${title}</title>`), path);
      assert.ok(res.text.includes(`<h1>${title}</h1>`), path);
      assert.ok(res.text.includes(text), path);
      assert.ok(!res.text.includes('script'), `${path}: nothing from the request`);
    }
  });
});

describe('discovery with monetization switched off', () => {
  test('when APP_MODULES_MONETIZATION_ENABLED=false then all six paths answer 404 module_disabled', async () => {
    const svc = await startTestService({ env: { APP_MODULES_MONETIZATION_ENABLED: 'false' } });
    try {
      for (const path of [...DOCUMENTS, '/public/checkout/complete?kind=payment', '/public/checkout/cancelled']) {
        const res = await svc.http.get(path);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, 'module_disabled', path);
      }
    } finally {
      await svc.close();
    }
  });
});
