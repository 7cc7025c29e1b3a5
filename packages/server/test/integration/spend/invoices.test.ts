import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { backend, createTestAccount, startTestService, type HttpResponse, type TestService } from '../../harness.js';

const PATH = '/api/v1/spend/invoices';

type Form = { provider?: string; periodStart?: string; periodEnd?: string; currency?: string; csv?: string | Uint8Array; fileName?: string };

/** A valid August 2026 Anthropic invoice form; `over` replaces or (undefined) drops parts. */
function form(over: Partial<Form> = {}): FormData {
  const parts: Form = { provider: 'ANTHROPIC', periodStart: '2026-08-01', periodEnd: '2026-08-31', csv: 'description,amount\nTokens,10.00\n', fileName: 'invoice-aug.csv', ...over };
  const data = new FormData();
  for (const key of ['provider', 'periodStart', 'periodEnd', 'currency'] as const) {
    if (parts[key] !== undefined) data.append(key, parts[key]);
  }
  if (parts.csv !== undefined) data.append('file', new Blob([parts.csv], { type: 'text/csv' }), parts.fileName);
  return data;
}

describe(`spend invoice import (contract §7.8, ${backend})`, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-09-05T10:00:00Z' });
  });
  after(() => svc.close());

  async function operator() {
    const account = await createTestAccount(svc);
    const send = async (body: FormData | string, headers: Record<string, string> = {}): Promise<HttpResponse> => {
      const res = await fetch(svc.baseUrl + PATH, { method: 'POST', headers: { authorization: `Bearer ${account.token}`, ...headers }, body });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
    };
    const upload = (over: Partial<Form> = {}) => send(form(over));
    const list = async () => {
      const res = await svc.http.get(PATH, { auth: account.token });
      assert.equal(res.status, 200, res.text);
      return res.body.data as any[];
    };
    return { account, send, upload, list, remove: (id: string) => svc.http.delete(`${PATH}/${id}`, { auth: account.token }) };
  }

  /** Asserts a 400 whose message is `message` and that nothing was imported. */
  async function refused(op: Awaited<ReturnType<typeof operator>>, res: HttpResponse, message: string | RegExp, code = 'validation_failed', status = 400) {
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.error.code, code);
    if (typeof message === 'string') assert.equal(res.body.error.message, message);
    else assert.match(res.body.error.message, message);
    assert.deepEqual(await op.list(), [], 'nothing was written');
  }

  test('when a CSV with BOM, CRLF, quoted fields, credits and optional columns is imported then 201 returns the invoice with exact cents', async () => {
    const op = await operator();
    const csv =
      '\ufeffModel, Description ,AMOUNT,Quantity,kind,Notes\r\n' +
      'claude-sonnet-4-5,"Tokens, input and output",0.10,1200000,,ignored\r\n' +
      ',"Seats ""Team"" plan",0.20,5,seat,\r\n' +
      '\r\n' +
      ',"Usage credit\nAugust",-0.05,,,\r\n' +
      ',Big line,999999999999.99,,OTHER,\r\n' +
      ',,,,,\r\n';
    const res = await op.upload({ csv, currency: 'USD', fileName: 'C:\\exports\\anthropic aug.csv' });
    assert.equal(res.status, 201, res.text);
    const invoice = res.body.data;
    assert.match(invoice.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual({ ...invoice, id: undefined }, {
      id: undefined,
      provider: 'ANTHROPIC',
      periodStart: '2026-08-01',
      periodEnd: '2026-08-31',
      currency: 'USD',
      // 10 + 20 - 5 + 99999999999999 cents, exactly (0.10 + 0.20 in floats is 0.30000000000000004)
      totalCents: 100000000000024,
      importedFrom: 'anthropic aug.csv',
      createdAt: '2026-09-05T10:00:00.000Z',
      lines: [
        { description: 'Tokens, input and output', kind: 'TOKEN', model: 'claude-sonnet-4-5', quantity: 1200000, amountCents: 10 },
        { description: 'Seats "Team" plan', kind: 'SEAT', model: null, quantity: 5, amountCents: 20 },
        { description: 'Usage credit\nAugust', kind: 'OTHER', model: null, quantity: null, amountCents: -5 },
        { description: 'Big line', kind: 'OTHER', model: null, quantity: null, amountCents: 99999999999999 },
      ],
    });
    assert.match(res.text, /"totalCents":100000000000024\b/, 'the total is an exact JSON number');
    assert.deepEqual(await op.list(), [invoice], 'the list shows what the import answered');
  });

  test('when currency is left out then it is USD; a JPY amount with decimals is refused, whole yen are cents × 100', async () => {
    const op = await operator();
    const usd = await op.upload({ currency: undefined });
    assert.equal(usd.status, 201, usd.text);
    assert.equal(usd.body.data.currency, 'USD');
    const yen = await op.upload({ currency: ' jpy ', csv: 'description,amount\nTokens,1500\n' });
    assert.equal(yen.status, 201, yen.text);
    assert.equal(yen.body.data.currency, 'JPY', 'codes are read trimmed and upper-cased');
    assert.equal(yen.body.data.totalCents, 150000);
    const fractional = await op.send(form({ currency: 'JPY', csv: 'description,amount\nTokens,1500.5\n' }));
    assert.equal(fractional.status, 400);
    assert.equal(fractional.body.error.message, "Row 2, column amount: JPY amounts have at most 0 decimal places: '1500.5'");
    const usdThree = await op.send(form({ csv: 'description,amount\nTokens,1.005\n' }));
    assert.equal(usdThree.body.error.message, "Row 2, column amount: USD amounts have at most 2 decimal places: '1.005'");
  });

  test('when rows are bad then 400 names the row and column of each, and nothing is written', async () => {
    const op = await operator();
    const csv = ['description,amount,kind,quantity', 'Tokens,10.00,,', 'Seats,abc,,', ',5,,', 'Tool,1e3,,', 'Other,5,FOO,', 'Q,5,,-', 'Wide,5,,,extra', 'Money,"$1,200.00",,'].join('\n');
    const res = await op.upload({ csv });
    await refused(op, res, "Row 3, column amount: not a number: 'abc' (write a plain decimal such as 1234.50: no currency sign, no thousands separator) (and 6 more problems; see fields)");
    assert.deepEqual(res.body.error.fields.map((f: { message: string }) => f.message.replace(/ \(write a plain.*\)$/, '')), [
      "Row 3, column amount: not a number: 'abc'",
      'Row 4, column description: is empty',
      "Row 5, column amount: not a number: '1e3'",
      "Row 6, column kind: must be one of TOKEN, SEAT, TOOL, OTHER: 'FOO'",
      "Row 7, column quantity: not a number: '-'",
      'Row 8: has 5 fields, the header has 4',
      "Row 9, column amount: not a number: '$1,200.00'",
    ]);
    assert.ok(res.body.error.fields.every((f: { field: string }) => f.field === 'file'));
  });

  test('when the header is wrong, the file is empty or has no rows then 400 says which', async () => {
    const op = await operator();
    await refused(op, await op.upload({ csv: 'description,amount,Amount\nx,1,2\n' }), 'Row 1, column amount: appears more than once in the header');
    await refused(op, await op.upload({ csv: 'description,total\nx,1\n' }), /^Row 1, column amount: missing from the header \(required columns: description, amount/);
    await refused(op, await op.upload({ csv: '' }), /^file: the CSV is empty/);
    await refused(op, await op.upload({ csv: '\ufeff\r\n\r\n' }), /^file: the CSV is empty/);
    await refused(op, await op.upload({ csv: 'description,amount\r\n\r\n' }), /^file: the CSV has a header but no line items/);
    await refused(op, await op.upload({ csv: 'description,amount\nx,"1\n' }), /^file: not valid CSV: Quote Not Closed/);
    await refused(op, await op.upload({ csv: new Uint8Array([0x64, 0x2c, 0x61, 0x0a, 0xff, 0xfe, 0x0a]) }), /^file: not UTF-8 text/);
    await refused(op, await op.upload({ csv: 'description,amount\nx\u0000,1\n' }), /^file: contains NUL characters/);
    await refused(op, await op.upload({ csv: 'description,amount\nrefund,-5\ntokens,1\n' }), /^file: the line items add up to a negative total \(-4 USD\)/);
    await refused(op, await op.upload({ csv: `description,amount\n${'x'.repeat(501)},1\n` }), 'Row 2, column description: longer than 500 characters');
    await refused(op, await op.upload({ csv: 'description,amount\nx,1000000000000.01\n' }), "Row 2, column amount: beyond ±1000000000000: '1000000000000.01'");
  });

  test('when a form part is missing or invalid then 400 names the part', async () => {
    const op = await operator();
    await refused(op, await op.upload({ provider: undefined }), /^Validation failed: provider: /);
    await refused(op, await op.upload({ provider: 'AZURE' }), /^Validation failed: provider: /);
    await refused(op, await op.upload({ periodStart: '2026-02-30' }), 'Validation failed: periodStart: must be a date YYYY-MM-DD');
    await refused(op, await op.upload({ periodEnd: undefined }), /^Validation failed: periodEnd: /);
    await refused(op, await op.upload({ periodStart: '2026-09-01', periodEnd: '2026-08-31' }), 'Validation failed: periodEnd: must not be before periodStart');
    await refused(op, await op.upload({ currency: 'ZZZ' }), 'Validation failed: currency: must be an ISO 4217 code such as USD');
    await refused(op, await op.upload({ csv: undefined }), 'Validation failed: file: must be a file part holding the CSV');
    const textFile = form({ csv: undefined });
    textFile.append('file', 'description,amount\nx,1\n');
    await refused(op, await op.send(textFile), 'Validation failed: file: must be a file part holding the CSV (curl: -F file=@invoice.csv)');
    const twice = form();
    twice.append('provider', 'OPENAI');
    await refused(op, await op.send(twice), 'Validation failed: provider: sent more than once');
    const twoFiles = form();
    twoFiles.append('file', new Blob(['a']), 'b.csv');
    await refused(op, await op.send(twoFiles), 'Validation failed: file: sent more than once');
    const otherFile = form();
    otherFile.append('attachment', new Blob(['a']), 'b.csv');
    await refused(op, await op.send(otherFile), 'Validation failed: attachment: unexpected file part; send the CSV in the part named file');
    const longField = form();
    longField.append('note', 'n'.repeat(2000));
    await refused(op, await op.send(longField), 'Validation failed: note: longer than 1024 bytes');
  });

  test('when the body is too large, not multipart or malformed then 413, 415 or 400 with a stable code', async () => {
    const op = await operator();
    const big = `description,amount\n${'Tokens used in August,1.00\n'.repeat(45_000)}`;
    assert.ok(big.length > 1024 * 1024);
    await refused(op, await op.upload({ csv: big }), 'file: larger than 1048576 bytes', 'payload_too_large', 413);
    const many = `description,amount\n${'t,1\n'.repeat(10_001)}`;
    await refused(op, await op.upload({ csv: many }), 'file: 10001 line items; at most 10000 per invoice');
    const json = await op.send(JSON.stringify({ provider: 'ANTHROPIC' }), { 'content-type': 'application/json' });
    await refused(op, json, /^Send the invoice as multipart\/form-data/, 'unsupported_media_type', 415);
    await refused(op, await op.send('description,amount\nx,1\n', { 'content-type': 'text/csv' }), /^Unsupported Content-Type: send the invoice as multipart\/form-data/, 'unsupported_media_type', 415);
    await refused(op, await op.send('--x\r\n', { 'content-type': 'multipart/form-data' }), /^Malformed multipart\/form-data body/);
    const truncated = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ndescription,amount\nx,1\n';
    await refused(op, await op.send(truncated, { 'content-type': 'multipart/form-data; boundary=b' }), /^Malformed multipart\/form-data body/);
    await refused(op, await op.send('', { 'content-type': 'multipart/form-data; boundary=b' }), /^Validation failed: /);
  });

  test('when multipart bodies are malformed in other ways then each answers a 4xx envelope, never a 5xx', async () => {
    const op = await operator();
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    const part = (name: string, value: string, extra = '') => `--B\nContent-Disposition: form-data; name="${name}"${extra}\n\n${value}\n`;
    const cases: [string, string, string, number, RegExp][] = [
      ['reserved part name', part('__proto__', 'x') + '--B--\n', 'multipart/form-data; boundary=B', 400, /^Malformed multipart\/form-data body: a part name is reserved/],
      ['JSON part that does not parse', part('provider', '{bad', '\nContent-Type: application/json') + '--B--\n', 'multipart/form-data; boundary=B', 400, /^Malformed multipart\/form-data body/],
      ['part without Content-Disposition', '--B\nContent-Type: text/plain\n\nabc\n--B--\n', 'multipart/form-data; boundary=B', 400, /^Validation failed: provider/],
      ['50 parts', Array.from({ length: 50 }, (_, i) => part(`f${i}`, 'v')).join('') + '--B--\n', 'multipart/form-data; boundary=B', 413, /^At most 20 form parts$/],
      ['binary garbage', '\u0000\u0001\u0002', 'multipart/form-data; boundary=B', 400, /^Malformed multipart\/form-data body/],
      ['multipart/mixed', part('provider', 'OPENAI') + '--B--\n', 'multipart/mixed; boundary=B', 415, /multipart\/form-data/],
    ];
    for (const [label, body, type, status, message] of cases) {
      const res = await op.send(crlf(body), { 'content-type': type });
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.match(res.body.error.message, message, label);
      assert.equal(typeof res.body.error.requestId, 'string');
    }
    const named = crlf(part('provider', 'OPENAI') + part('periodStart', '2026-08-01') + part('periodEnd', '2026-08-01') +
      '--B\nContent-Disposition: form-data; name="file"; filename="../../etc/a\u0007b.csv"\n\ndescription,amount\nx,1\n--B--\n');
    const res = await op.send(named, { 'content-type': 'multipart/form-data; boundary=B' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.importedFrom, 'ab.csv', 'the file name is kept without directories or control characters');
  });

  test('when another route gets a multipart body then it still answers 415: multipart is parsed by the invoice routes only', async () => {
    const op = await operator();
    const res = await fetch(`${svc.baseUrl}/api/v1/monetization/features`, { method: 'POST', headers: { authorization: `Bearer ${op.account.token}` }, body: form() });
    assert.equal(res.status, 415);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unsupported_media_type');
  });

  test('when invoices are listed then latest period comes first, then import order, and only the account\'s own', async () => {
    const op = await operator();
    const other = await operator();
    await other.upload();
    const ids: Record<string, string> = {};
    for (const [name, periodStart, periodEnd] of [['jul-a', '2026-07-01', '2026-07-31'], ['aug', '2026-08-01', '2026-08-31'], ['jul-b', '2026-07-01', '2026-07-15']] as const) {
      svc.clock.advanceMs(1000);
      const res = await op.upload({ periodStart, periodEnd });
      assert.equal(res.status, 201, res.text);
      ids[name] = res.body.data.id;
    }
    assert.deepEqual((await op.list()).map((i) => i.id), [ids.aug, ids['jul-a'], ids['jul-b']]);
    assert.equal((await other.list()).length, 1);
  });

  test('when an invoice is deleted then it and its lines are gone; unknown and foreign ids are 404', async () => {
    const op = await operator();
    const other = await operator();
    const mine = (await op.upload({ csv: 'description,amount\na,1\nb,2\n' })).body.data;
    const theirs = (await other.upload()).body.data;
    const foreign = await op.remove(theirs.id);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'not_found');
    assert.equal((await other.list()).length, 1, "another account's invoice is untouched");
    assert.equal((await op.remove('00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await op.remove('not-a-uuid')).status, 400);
    const res = await op.remove(mine.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { success: true });
    assert.deepEqual(await op.list(), []);
    const lines = await svc.ctx.db.selectFrom('spend_invoice_lines').select('line_no').where('invoice_id', '=', mine.id).execute();
    assert.deepEqual(lines, [], 'the lines went with the invoice');
    assert.equal((await op.remove(mine.id)).status, 404, 'a second delete is 404');
  });
});
