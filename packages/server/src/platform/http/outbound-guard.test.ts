import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { classifyAddress, guardedDispatcher, OUTBOUND_URL_REFUSED, outboundUrlRefusal, parseIpv6, refusalOf } from './outbound-guard.js';

const strict = { allowPrivate: false, allowLoopback: false };
const lenient = { allowPrivate: true, allowLoopback: false };

describe('outbound guard: address classification', () => {
  const cases: [string, string][] = [
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2606:4700::1111', 'public'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['not-an-ip', 'invalid'],
    ['1.2.3', 'invalid'],
    ['1.2.3.256', 'invalid'],
    ['1::2::3', 'invalid'],
  ];
  for (const [address, kind] of cases) {
    it(`when ${address} then ${kind}`, () => assert.equal(classifyAddress(address), kind));
  }

  it('when an IPv6 address is written in full or abbreviated then both parse to the same bytes', () => {
    assert.deepEqual(parseIpv6('2001:db8::1'), parseIpv6('2001:0db8:0000:0000:0000:0000:0000:0001'));
    assert.equal(parseIpv6('1:2:3:4:5:6:7:8:9'), null);
  });

  it('when private ranges are allowed then only loopback, link-local and unspecified stay refused', () => {
    assert.equal(refusalOf('10.0.0.1', lenient), null);
    assert.match(refusalOf('10.0.0.1', strict)!, /private address \(APP_SPEND_OUTBOUND_ALLOW_PRIVATE=false\)/);
    assert.match(refusalOf('127.0.0.1', lenient)!, /loopback/);
    assert.equal(refusalOf('127.0.0.1', { allowPrivate: false, allowLoopback: true }), null);
    assert.match(refusalOf('169.254.169.254', { allowPrivate: true, allowLoopback: true })!, /link-local/);
    assert.match(refusalOf('::', { allowPrivate: true, allowLoopback: true })!, /unspecified/);
  });
});

describe('outbound guard: URL on save', () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return found;
  };
  const dns = resolver({ 'public.test': ['93.184.216.34'], 'mixed.test': ['93.184.216.34', '127.0.0.1'], 'lan.test': ['192.168.0.10'], 'v6.test': ['::ffff:169.254.169.254'] });

  it('when the URL is public http(s) then it is accepted', async () => {
    assert.equal(await outboundUrlRefusal('https://public.test/hook', lenient, dns), null);
    assert.equal(await outboundUrlRefusal('http://8.8.8.8:8080/x', strict, dns), null);
  });
  it('when the scheme is not http(s) then it is refused', async () => {
    assert.match((await outboundUrlRefusal('ftp://public.test/x', lenient, dns))!, /scheme ftp is not allowed/);
    assert.match((await outboundUrlRefusal('file:///etc/passwd', lenient, dns))!, /scheme file/);
  });
  it('when the URL carries credentials then it is refused', async () => {
    assert.match((await outboundUrlRefusal('https://user:pw@public.test/', lenient, dns))!, /credentials/);
    assert.match((await outboundUrlRefusal('https://user@public.test/', lenient, dns))!, /credentials/);
  });
  it('when the host does not resolve then it is refused', async () => {
    assert.match((await outboundUrlRefusal('https://nowhere.test/', lenient, dns))!, /does not resolve/);
  });
  it('when the text is not a URL then it is refused', async () => {
    assert.equal(await outboundUrlRefusal('not a url', lenient, dns), 'not a valid URL');
  });
  it('when an IP literal is forbidden then it is refused without a lookup', async () => {
    assert.match((await outboundUrlRefusal('http://127.0.0.1:9/', lenient, dns))!, /loopback/);
    assert.match((await outboundUrlRefusal('http://[::1]/', lenient, dns))!, /loopback/);
    assert.match((await outboundUrlRefusal('http://[::ffff:127.0.0.1]/', lenient, dns))!, /loopback/);
    assert.match((await outboundUrlRefusal('http://169.254.169.254/latest/meta-data', lenient, dns))!, /link-local/);
    assert.match((await outboundUrlRefusal('http://0.0.0.0/', lenient, dns))!, /unspecified/);
    assert.match((await outboundUrlRefusal('http://[fe80::1]/', lenient, dns))!, /link-local/);
  });
  it('when any address of the host is forbidden then the host is refused', async () => {
    assert.match((await outboundUrlRefusal('https://mixed.test/', lenient, dns))!, /mixed\.test resolves to 127\.0\.0\.1 is a loopback/);
    assert.match((await outboundUrlRefusal('https://v6.test/', lenient, dns))!, /link-local/);
  });
  it('when private ranges are off then a private host is refused, else accepted', async () => {
    assert.match((await outboundUrlRefusal('https://lan.test/', strict, dns))!, /private/);
    assert.equal(await outboundUrlRefusal('https://lan.test/', lenient, dns), null);
  });
});

describe('outbound guard: connection time (DNS rebinding)', () => {
  async function withServer(fn: (port: number) => Promise<void>) {
    const server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await fn((server.address() as AddressInfo).port);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
  // A resolver that answers what an attacker's DNS answers at connection time: loopback.
  const rebound = (_host: string, _o: object, cb: (err: null, a: { address: string; family: number }[]) => void) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
  const refusalCode = (err: unknown) => {
    let e = err as { code?: string; cause?: unknown } | undefined;
    for (let i = 0; i < 4 && e; i += 1, e = e.cause as typeof e) if (e.code) return e.code;
    return undefined;
  };

  it('when a name that passed on save resolves to loopback at connection time then the connection is refused', async () => {
    await withServer(async (port) => {
      const dispatcher = guardedDispatcher(lenient, rebound as never);
      const err = await fetch(`http://rebind.test:${port}/`, { dispatcher } as RequestInit).then(() => null, (e: unknown) => e);
      assert.ok(err, 'the request must fail');
      assert.equal(refusalCode(err), OUTBOUND_URL_REFUSED);
      await dispatcher.close();
    });
  });
  it('when loopback is allowed then the same name connects (the guard, not the resolver, refused above)', async () => {
    await withServer(async (port) => {
      const dispatcher = guardedDispatcher({ allowPrivate: true, allowLoopback: true }, rebound as never);
      const response = await fetch(`http://rebind.test:${port}/`, { dispatcher } as RequestInit);
      assert.equal(await response.text(), 'reached');
      await dispatcher.close();
    });
  });
  it('when the URL is a forbidden IP literal then the connection is refused before any socket opens', async () => {
    await withServer(async (port) => {
      const dispatcher = guardedDispatcher(lenient);
      const err = await fetch(`http://127.0.0.1:${port}/`, { dispatcher } as RequestInit).then(() => null, (e: unknown) => e);
      assert.equal(refusalCode(err), OUTBOUND_URL_REFUSED);
      await dispatcher.close();
    });
  });
  it('when localhost resolves through the system resolver then it is refused unless loopback is allowed', async () => {
    await withServer(async (port) => {
      const dispatcher = guardedDispatcher(lenient);
      const err = await fetch(`http://localhost:${port}/`, { dispatcher } as RequestInit).then(() => null, (e: unknown) => e);
      assert.equal(refusalCode(err), OUTBOUND_URL_REFUSED);
      await dispatcher.close();
    });
  });
});
