import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchWriter, BatchWriters } from './batch-writer.js';

const silent = { logger: () => ({ error: () => {} }) };
const tick = () => new Promise((r) => setImmediate(r));

test('when rows arrive while a batch is in flight then they form the next batch, and each write resolves once its batch is stored', async () => {
  const batches: number[][] = [];
  let release!: () => void;
  const writer = new BatchWriter<number>(async (rows) => {
    batches.push(rows);
    if (batches.length === 1) await new Promise<void>((r) => (release = r));
  }, { name: 'w', ...silent });
  const first = [writer.write(1), writer.write(2)];
  await tick();
  await tick();
  const second = [writer.write(3), writer.write(4), writer.write(5)];
  release();
  await Promise.all([...first, ...second]);
  assert.deepEqual(batches, [[1, 2], [3, 4, 5]]);
});

test('when a batch fails on a bad row then its rows are retried one by one and only the bad row fails', async () => {
  const stored: string[] = [];
  const writer = new BatchWriter<string>(async (rows) => {
    if (rows.includes('bad')) throw Object.assign(new Error('bad row'), { code: '22001' });
    stored.push(...rows);
  }, { name: 'w', ...silent });
  const results = await Promise.allSettled(['a', 'bad', 'c'].map((row) => writer.write(row)));
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.deepEqual(stored, ['a', 'c']);
});

test('when a batch fails for another reason (connection lost) then its rows fail together, without a retry storm', async () => {
  let calls = 0;
  const writer = new BatchWriter<string>(async () => {
    calls++;
    throw Object.assign(new Error('too many clients'), { code: '53300' });
  }, { name: 'w', ...silent });
  const results = await Promise.allSettled(['a', 'b', 'c'].map((row) => writer.write(row)));
  assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected', 'rejected']);
  assert.equal(calls, 1);
});

test('when rows are written behind then the writer answers at once, flush waits for them, and a lost row is logged', async () => {
  const stored: number[] = [];
  const logged: string[] = [];
  let fail = false;
  const writer = new BatchWriter<number>(async (rows) => {
    await tick();
    if (fail) throw new Error('database gone');
    stored.push(...rows);
  }, { name: 'audit', logger: () => ({ error: (_d, message) => logged.push(message) }) });
  await writer.writeBehind(1);
  await writer.writeBehind(2);
  assert.deepEqual(stored, [], 'not yet committed when writeBehind returns');
  await writer.flush();
  assert.deepEqual(stored, [1, 2]);
  fail = true;
  await writer.writeBehind(3);
  await writer.flush();
  await tick();
  assert.deepEqual(logged, ['batched row lost']);
});

test('when more rows are pending than allowed then writeBehind waits for its commit (backpressure)', async () => {
  const stored: number[] = [];
  const writer = new BatchWriter<number>(async (rows) => {
    await tick();
    stored.push(...rows);
  }, { name: 'w', ...silent, maxPending: 2 });
  await writer.writeBehind(1);
  await writer.writeBehind(2);
  await writer.writeBehind(3);
  assert.ok(stored.includes(3), 'the third row waited for its batch');
});

test('when the writers close then queued rows are stored first and later writes are refused', async () => {
  const stored: number[] = [];
  const writers = new BatchWriters();
  const writer = writers.get<number>('w', async (rows) => void stored.push(...rows));
  await writer.writeBehind(1);
  await writer.writeBehind(2);
  await writers.close();
  assert.deepEqual(stored, [1, 2]);
  await assert.rejects(writer.write(3), /closed/);
});
