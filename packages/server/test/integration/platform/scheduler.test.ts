import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FrozenClock } from '../../../src/platform/clock.js';
import { latestSlot, Scheduler, type Job } from '../../../src/platform/jobs/scheduler.js';
import { startTestService, type TestService } from '../../harness.js';

describe('scheduler: once per slot across nodes', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ now: '2026-01-31T05:59:00Z' });
  });
  after(() => svc.close());

  test('latestSlot is the last cron instant at or before now (UTC)', () => {
    assert.equal(latestSlot('0 6 * * *', new Date('2026-01-31T06:00:00Z')).toISOString(), '2026-01-31T06:00:00.000Z');
    assert.equal(latestSlot('0 6 * * *', new Date('2026-01-31T05:59:59Z')).toISOString(), '2026-01-30T06:00:00.000Z');
    assert.equal(latestSlot('0 */15 * * * *', new Date('2026-01-31T10:07:03Z')).toISOString(), '2026-01-31T10:00:00.000Z');
  });

  test('when two nodes tick in the same slot then the job runs once, and again in the next slot', async () => {
    const runs: string[] = [];
    const job: Job = { name: 'daily-six', cron: '0 6 * * *', run: async ({ slot }) => void runs.push(slot.toISOString()) };
    const clockA = new FrozenClock('2026-01-31T06:00:05Z');
    const clockB = new FrozenClock('2026-01-31T06:00:07Z');
    const nodeA = new Scheduler(svc.ctx.db, clockA, [job], svc.app.log);
    const nodeB = new Scheduler(svc.ctx.db, clockB, [job], svc.app.log);
    const outcomes = await Promise.all([nodeA.runDue(), nodeB.runDue(), nodeA.runDue()]);
    assert.deepEqual(outcomes.flat().map((o) => o.status).sort(), ['ran', 'skipped', 'skipped']);
    assert.deepEqual(runs, ['2026-01-31T06:00:00.000Z']);
    clockA.set('2026-02-01T06:00:00Z');
    clockB.set('2026-02-01T06:30:00Z');
    await Promise.all([nodeA.runDue(), nodeB.runDue()]);
    assert.deepEqual(runs, ['2026-01-31T06:00:00.000Z', '2026-02-01T06:00:00.000Z']);
  });

  test('when a job fails then the failure is recorded and the slot is not retried', async () => {
    let attempts = 0;
    const job: Job = {
      name: 'flaky',
      cron: '*/5 * * * *',
      run: async () => {
        attempts += 1;
        throw new Error('vendor down');
      },
    };
    const clock = new FrozenClock('2026-01-31T07:02:00Z');
    const scheduler = new Scheduler(svc.ctx.db, clock, [job], svc.app.log);
    assert.equal((await scheduler.run('flaky')).status, 'failed');
    assert.equal((await scheduler.run('flaky')).status, 'skipped');
    assert.equal(attempts, 1);
    const row = await svc.ctx.db.selectFrom('job_runs').selectAll().where('job_name', '=', 'flaky').executeTakeFirstOrThrow();
    assert.equal(row.outcome, 'FAILED');
    assert.equal(row.error, 'vendor down');
  });

  test('when a cron expression is invalid then the scheduler refuses to start', () => {
    assert.throws(() => new Scheduler(svc.ctx.db, svc.clock, [{ name: 'bad', cron: 'every day', run: async () => {} }], svc.app.log));
  });
});
