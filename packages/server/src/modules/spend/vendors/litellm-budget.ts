import type { Decimal } from '../../../platform/money.js';
import { bearerHttp, exactOf } from './http.js';
import { liteLlmMessageOf } from './litellm.js';
import { VendorError, type VendorClientOptions } from './types.js';

/**
 * LiteLLM budget management (vendor-apis.md §5.4): pushing a `max_budget` (USD, `null` = no limit)
 * to a team, virtual key or internal user, and reading a team's or key's budget back.
 *
 * - Push: `POST /team/update {team_id}`, `/key/update {key}`, `/user/update {user_id}` with
 *   `max_budget` written as the exact decimal lexeme (never through a float) and, with a limit,
 *   `budget_duration: "1mo"`. A `null` push sends `max_budget` alone. The answer's shape is
 *   INFERRED in the doc, so any 2xx JSON answer is success and its body is not read.
 * - Read back: `GET /team/info?team_id=`, `GET /key/info?key=`; the fields (`spend`, `max_budget`,
 *   `budget_duration`) are INFERRED too, so they are looked for at the top level and under
 *   `team_info`, `info` or `data`. The doc names no read-back for users.
 * - Errors: the proxy's JSON `message` or `detail` only (as the usage client).
 */
export type LiteLlmTargetKind = 'team' | 'key' | 'user';
export type LiteLlmTarget = { kind: LiteLlmTargetKind; id: string };

/** What the proxy reports for a target: spend in dollars, exact; null fields were not reported. */
export type LiteLlmBudgetInfo = { spendDollars: Decimal | null; maxBudgetDollars: Decimal | null; budgetDuration: string | null };

export interface LiteLlmBudgetClient {
  setMaxBudget(target: LiteLlmTarget, maxBudgetDollars: Decimal | null): Promise<void>;
  /** Team or key only (the doc names no user read-back). */
  budgetInfo(target: LiteLlmTarget & { kind: 'team' | 'key' }): Promise<LiteLlmBudgetInfo>;
}

const VENDOR = 'LiteLLM';
/** `budget_duration` of every pushed limit: the proxy resets its counter monthly, as our monthly ceiling. */
export const MONTHLY_BUDGET_DURATION = '1mo';

const UPDATE = {
  team: { path: '/team/update', idField: 'team_id' },
  key: { path: '/key/update', idField: 'key' },
  user: { path: '/user/update', idField: 'user_id' },
} as const;

const INFO = {
  team: { path: '/team/info', idField: 'team_id' },
  key: { path: '/key/info', idField: 'key' },
} as const;

export function createLiteLlmBudgetClient(options: VendorClientOptions): LiteLlmBudgetClient {
  const http = bearerHttp(options, VENDOR, liteLlmMessageOf);
  return {
    async setMaxBudget(target, maxBudgetDollars) {
      const { path, idField } = UPDATE[target.kind];
      const json = {
        [idField]: target.id,
        max_budget: maxBudgetDollars,
        ...(maxBudgetDollars === null ? {} : { budget_duration: MONTHLY_BUDGET_DURATION }),
      };
      await http.exact({ method: 'POST', path, json });
    },
    async budgetInfo(target) {
      const { path, idField } = INFO[target.kind];
      const body = await http.exact<unknown>({ path, query: { [idField]: target.id } });
      return budgetInfoOf(body);
    },
  };
}

/** The budget fields of a `/team/info` or `/key/info` answer, wherever the proxy put them. */
export function budgetInfoOf(body: unknown): LiteLlmBudgetInfo {
  if (!body || typeof body !== 'object') throw new VendorError(`${VENDOR} answered the budget read-back without an object`);
  const top = body as Record<string, unknown>;
  const holder = [top, top['team_info'], top['info'], top['data']].find(
    (candidate): candidate is Record<string, unknown> => !!candidate && typeof candidate === 'object' && 'spend' in candidate,
  );
  if (!holder) throw new VendorError(`${VENDOR} answered the budget read-back without a spend figure`);
  const duration = holder['budget_duration'];
  return {
    spendDollars: exactOf(holder['spend'], VENDOR, 'spend'),
    maxBudgetDollars: exactOf(holder['max_budget'], VENDOR, 'max_budget'),
    budgetDuration: typeof duration === 'string' ? duration : null,
  };
}
