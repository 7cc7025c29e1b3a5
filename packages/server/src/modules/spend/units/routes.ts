import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../platform/context.js';
import { emptyEnvelopeSchema, envelopeSchema, ok, okEmpty } from '../../../platform/http/envelope.js';
import { accountIdOf } from '../../../platform/http/principal.js';
import { DEFAULT_RULE_PRIORITY, MAX_GITHUB_LOGIN, MAX_MATCH_VALUE, MAX_UNIT_EMAIL, MAX_UNIT_NAME } from './domain.js';
import * as units from './service.js';
import { SPEND_PROVIDERS } from '../providers.js';

const tags = ['Spend units and rules'];
const IdParams = z.object({ id: z.uuid() });

// Lengths are checked after trimming in units/domain.ts (with their messages); the schema states them.
const UnitRequestSchema = z.object({
  type: z.enum(['TEAM', 'PROJECT', 'PERSON']),
  name: z.string().max(4 * MAX_UNIT_NAME).meta({ maxLength: MAX_UNIT_NAME, description: `Required, at most ${MAX_UNIT_NAME} characters (trimmed)` }),
  email: z.string().max(4 * MAX_UNIT_EMAIL).nullish().meta({ maxLength: MAX_UNIT_EMAIL, description: 'PERSON only; lower-cased' }),
  githubLogin: z.string().max(4 * MAX_GITHUB_LOGIN).nullish().meta({ maxLength: MAX_GITHUB_LOGIN, description: 'PERSON only' }),
  parentId: z.uuid().nullish().describe('A unit of this account; a loop is refused'),
  featureId: z.uuid().nullish().describe('PROJECT only: the monetization feature it builds (feature P&L); null clears it'),
});

const UnitSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(['TEAM', 'PROJECT', 'PERSON']),
    name: z.string(),
    email: z.string().nullable(),
    githubLogin: z.string().nullable(),
    parentId: z.uuid().nullable(),
    featureId: z.uuid().nullable(),
    createdAt: z.date(),
  })
  .meta({ id: 'SpendUnit' });

const RuleRequestSchema = z.object({
  spendUnitId: z.uuid(),
  provider: z.enum(SPEND_PROVIDERS),
  matchKind: z.enum(['WORKSPACE_ID', 'API_KEY_ID', 'ACTOR']).describe('WORKSPACE_ID: workspace, project or LiteLLM team id; API_KEY_ID; ACTOR: e-mail, user id or LiteLLM user'),
  matchValue: z.string().max(4 * MAX_MATCH_VALUE).meta({ maxLength: MAX_MATCH_VALUE, description: 'Trimmed; compared exactly when matching' }),
  priority: z.number().int().min(-2147483648).max(2147483647).nullish().describe(`Lowest number wins; default ${DEFAULT_RULE_PRIORITY}`),
});

const RuleSchema = z
  .object({
    id: z.uuid(),
    spendUnitId: z.uuid(),
    provider: z.enum(SPEND_PROVIDERS),
    matchKind: z.enum(['WORKSPACE_ID', 'API_KEY_ID', 'ACTOR']),
    matchValue: z.string(),
    priority: z.number().int(),
  })
  .meta({ id: 'SpendRule' });

const toUnit = (u: units.UnitRow) => ({
  id: u.id,
  type: u.type,
  name: u.name,
  email: u.email,
  githubLogin: u.github_login,
  parentId: u.parent_id,
  featureId: u.feature_id,
  createdAt: u.created_at,
});

const toRule = (r: units.RuleRow) => ({
  id: r.id,
  spendUnitId: r.spend_unit_id,
  provider: r.provider,
  matchKind: r.match_kind,
  matchValue: r.match_value,
  priority: r.priority,
});

/** Spend units (TEAM / PROJECT / PERSON tree) and attribution rules (contract §7.4). JWT only. */
export function unitRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const base = '/api/v1/spend';
    app.get(`${base}/units`, { schema: { tags, operationId: 'listSpendUnits', summary: 'Spend units, by name', response: { 200: envelopeSchema(z.array(UnitSchema)) } } },
      async (request) => ok((await units.listUnits(ctx, accountIdOf(request))).map(toUnit)));
    app.post(`${base}/units`, { schema: { tags, operationId: 'createSpendUnit', summary: 'Create a spend unit', description: 'PERSON units need person-level attribution on (spend settings).', body: UnitRequestSchema, response: { 201: envelopeSchema(UnitSchema) } } },
      async (request, reply) => reply.code(201).send(ok(toUnit(await units.createUnit(ctx, accountIdOf(request), request.body)))));
    app.put(`${base}/units/:id`, { schema: { tags, operationId: 'replaceSpendUnit', summary: 'Replace a spend unit (full replace; parent moves are loop-checked)', params: IdParams, body: UnitRequestSchema, response: { 200: envelopeSchema(UnitSchema) } } },
      async (request) => ok(toUnit(await units.replaceUnit(ctx, accountIdOf(request), request.params.id, request.body))));
    app.delete(`${base}/units/:id`, { schema: { tags, operationId: 'deleteSpendUnit', summary: 'Delete a spend unit: its rules go, its children move up to its parent', params: IdParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await units.deleteUnit(ctx, accountIdOf(request), request.params.id)));
    app.get(`${base}/rules`, { schema: { tags, operationId: 'listSpendRules', summary: 'Attribution rules, priority ascending then creation', response: { 200: envelopeSchema(z.array(RuleSchema)) } } },
      async (request) => ok((await units.listRules(ctx, accountIdOf(request))).map(toRule)));
    app.post(`${base}/rules`, { schema: { tags, operationId: 'createSpendRule', summary: 'Create an attribution rule (applies at report time, history included)', body: RuleRequestSchema, response: { 201: envelopeSchema(RuleSchema) } } },
      async (request, reply) => reply.code(201).send(ok(toRule(await units.createRule(ctx, accountIdOf(request), request.body)))));
    app.delete(`${base}/rules/:id`, { schema: { tags, operationId: 'deleteSpendRule', summary: 'Delete an attribution rule', params: IdParams, response: { 200: emptyEnvelopeSchema } } },
      async (request) => okEmpty(await units.deleteRule(ctx, accountIdOf(request), request.params.id)));
  };
}
