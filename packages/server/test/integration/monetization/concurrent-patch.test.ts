import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { monetization } from '../../factories.js';
import { createTestAccount, startTestService, type TestService } from '../../harness.js';

/**
 * Concurrent PATCHes of one resource, each changing a different field, must all be applied: a
 * read-then-write that does not lock the row loses updates (on PostgreSQL; PGlite serialises).
 */
describe('concurrent PATCHes of one resource never lose an update', () => {
  let svc: TestService;
  let m: ReturnType<typeof monetization>;
  before(async () => {
    svc = await startTestService();
    m = monetization(svc, await createTestAccount(svc));
  });
  after(() => svc.close());

  const ROUNDS = 4;

  /** Sends every body at once, checks each answered 200, then returns the resource as read back. */
  async function patchTogether(patch: (body: Record<string, unknown>) => Promise<{ status: number; text: string }>, bodies: Record<string, unknown>[]) {
    const results = await Promise.all(bodies.map(patch));
    for (const r of results) assert.equal(r.status, 200, r.text);
  }

  test('when 20 PATCHes of one customer race, each setting one field, then every field holds its value', async () => {
    const { customerReferenceId: ref } = await m.customer('race-customer');
    for (let round = 0; round < ROUNDS; round++) {
      const bodies = [
        { email: `r${round}@example.com` },
        { firstName: `First ${round}` },
        { lastName: `Last ${round}` },
        { phoneNumber: `+1555000${round}` },
        { address: `${round} Race Street` },
      ];
      await patchTogether((body) => m.client('PATCH', `/customers/${ref}`, body), bodies);
      // The Client API view omits phone and address: read the row.
      const c = await svc.ctx.db.selectFrom('customers').selectAll().where('customer_reference_id', '=', ref).executeTakeFirstOrThrow();
      assert.deepEqual(
        [c.email, c.first_name, c.last_name, c.phone_number, c.address],
        bodies.map((b) => Object.values(b)[0]),
        `round ${round}: no update was lost`,
      );
    }
  });

  test('when 20 PATCHes of one feature race, each setting one field, then every field holds its value', async () => {
    const feature = await m.feature({ key: 'race-feature' });
    for (let round = 0; round < ROUNDS; round++) {
      const bodies = [
        { name: `Name ${round}` },
        { description: `Description ${round}` },
        { isEnabled: round % 2 === 1 },
        { metadata: { round } },
        { key: `race-feature-${round}` },
      ];
      await patchTogether((body) => m.admin('PATCH', `/features/${feature.id}`, body), bodies);
      const f = await m.expectOk(m.admin('GET', `/features/${feature.id}`));
      assert.deepEqual([f.name, f.description, f.isEnabled, f.metadata, f.key], bodies.map((b) => Object.values(b)[0]), `round ${round}`);
    }
  });

  test('when 24 PATCHes of one draft plan race, each setting one field, then every field holds its value', async () => {
    const plan = await m.expectOk(m.admin('POST', '/plans', { key: 'race-plan' }), 201);
    for (let round = 0; round < ROUNDS; round++) {
      const bodies = [
        { name: `Plan ${round}` },
        { description: `About ${round}` },
        { priceAmount: 10 + round },
        { intervalMonths: 1 + round },
        { billingTiming: round % 2 === 0 ? 'IN_ARREARS' : 'IN_ADVANCE' },
        { metadata: { round } },
      ];
      await patchTogether((body) => m.admin('PATCH', `/plans/${plan.id}`, body), bodies);
      const p = await m.expectOk(m.admin('GET', `/plans/${plan.id}`));
      assert.deepEqual(
        [p.name, p.description, p.priceAmount, p.intervalMonths, p.billingTiming, p.metadata],
        bodies.map((b) => Object.values(b)[0]),
        `round ${round}`,
      );
    }
  });
});
