import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../platform/context.js';
import { pageQuerySchema } from '../../platform/http/pagination.js';
import type { Principal } from '../../platform/http/principal.js';

/** Who may see and call a tool (contract §8.1): curated = any key, tenant = tenant keys, admin = tenant keys with the admin flag. */
type ToolAccess = 'curated' | 'tenant' | 'admin';

export type ToolCall = { ctx: AppContext; principal: Principal; request: FastifyRequest };

export type ToolSpec = {
  name: string;
  description: string;
  access: ToolAccess;
  /** The input schema without `confirmAction` (added for `confirm` tools). */
  input: z.ZodObject;
  /** Spends money or is hard to reverse: runs only with `confirmAction: true` (§8.3). */
  confirm?: boolean;
  /** A customer key also needs the `purchase` scope (§2.5). */
  purchase?: boolean;
  /** Takes `customerReferenceId`, which a tenant key must send (§8.2). */
  customerScoped?: boolean;
  /** Changes state or moves money: logged with the key hint and the tool name. */
  changesState?: boolean;
  run(call: ToolCall, args: any): Promise<unknown>;
};

export function tool<S extends z.ZodObject>(spec: Omit<ToolSpec, 'input' | 'run'> & { input: S; run(call: ToolCall, args: z.output<S>): Promise<unknown> }): ToolSpec {
  return spec;
}

/** The input of a tool that takes none. */
export const NoInputSchema = z.object({});
/** The tool lists return every row (one page of the Client API's largest size). */
export const firstPage = pageQuerySchema.parse({ limit: 200 });
