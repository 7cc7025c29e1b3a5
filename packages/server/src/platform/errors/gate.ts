import type { ErrorCode } from './codes.js';

/** What kind of refusal a gate is (api-contract-agent-v2.md §1.2). */
export type GateKind = 'payment' | 'budget' | 'scope';

/** What clears a gate: the one next step the caller (an agent) can take. */
export type GateAction =
  | 'complete_checkout'
  | 'nominate_owner'
  | 'wait'
  | 'raise_spend_cap'
  | 'raise_mandate'
  | 'use_own_reference'
  | 'request_scope';

/**
 * The machine-readable next step of a Client API refusal (contract §1.2). `url` and `poll` are either
 * absolute (a processor's checkout page) or a path starting with `/` that the envelope makes absolute
 * on the public base URL (APP_PUBLIC_BASE_URL, else the request's origin).
 */
export type Gate = {
  gate: GateKind;
  action: GateAction;
  url: string | null;
  poll: string | null;
  /** Seconds until the window resets (`wait` only), at least 1. */
  retryAfter: number | null;
};

/** The wire fields of a gate, all always present. */
export type GateFields = { gate: GateKind; action: GateAction; url: string | null; poll: string | null; retry_after: number | null };

const GATED_403: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['forbidden', 'scope_denied', 'budget_exceeded', 'spend_cap_exceeded']);

/** The Client API's base §2.6 text for a customer key aimed at another customer. */
export const OTHER_CUSTOMER_MESSAGE = 'This API key is scoped to another customer';

/** Whether an answer with this status and code carries a gate on the Client API: every 402, and the 403s of §1.2. */
export function isGatedAnswer(status: number, code: ErrorCode): boolean {
  return status === 402 || (status === 403 && GATED_403.has(code));
}

export function gate(kind: GateKind, action: GateAction, rest: Partial<Pick<Gate, 'url' | 'poll' | 'retryAfter'>> = {}): Gate {
  return { gate: kind, action, url: rest.url ?? null, poll: rest.poll ?? null, retryAfter: rest.retryAfter ?? null };
}

/**
 * The gate of a refusal thrown without one (contract §1.2's table), so every thrower of a 402 or 403
 * need not know about gates: a 402 with a checkout session in its data points at the checkout page
 * and polls the session; a 402 without one (no processor) has neither; a 403 `forbidden` for another
 * customer is `use_own_reference`, any other `forbidden` or `scope_denied` is `request_scope`;
 * the spend cap and budget refusals are `raise_spend_cap`. Throwers that know more (a window's
 * `retry_after`, a hosted invoice, the owner endpoint) set the gate explicitly.
 */
export function defaultGate(code: ErrorCode, message: string, data: unknown): Gate {
  switch (code) {
    case 'payment_required': {
      const d = (data ?? {}) as { checkoutUrl?: unknown; checkoutSessionId?: unknown };
      if (typeof d.checkoutSessionId === 'string' && typeof d.checkoutUrl === 'string') {
        return gate('payment', 'complete_checkout', { url: d.checkoutUrl, poll: `/api/v1/client/checkout-sessions/${encodeURIComponent(d.checkoutSessionId)}` });
      }
      return gate('payment', 'complete_checkout');
    }
    case 'forbidden':
      return gate('scope', message === OTHER_CUSTOMER_MESSAGE ? 'use_own_reference' : 'request_scope');
    case 'scope_denied':
      return gate('scope', 'request_scope');
    default:
      return gate('budget', 'raise_spend_cap');
  }
}

/** A gate's wire fields, its relative URLs made absolute on `baseUrl` (no trailing slash). */
export function toGateFields(g: Gate, baseUrl: string): GateFields {
  const absolute = (u: string | null) => (u === null ? null : u.startsWith('/') ? `${baseUrl}${u}` : u);
  return { gate: g.gate, action: g.action, url: absolute(g.url), poll: absolute(g.poll), retry_after: g.retryAfter };
}

/** `ceil((resetsAt − now) / 1 s)`, at least 1 (contract §1.2). */
export function retryAfterSeconds(resetsAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
}
