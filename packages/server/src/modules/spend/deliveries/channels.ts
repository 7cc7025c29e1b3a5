import type { Agent } from 'undici';
import type { AppContext } from '../../../platform/context.js';
import { emailContent, isRetryableStatus, slackText, webhookBody, webhookHeaders, type SpendEvent } from './domain.js';
import { guardRefusalOf, outboundPolicyOf, sharedGuardedDispatcher } from '../../../platform/http/outbound-guard.js';
import type { SpendSettings } from '../settings/domain.js';

/**
 * One HTTP call per channel (contract §7.6, vendor-apis.md §7): Slack incoming webhook, the generic
 * webhook (through the outbound-URL guard's dispatcher, so its address is checked again at connection
 * time), e-mail through Resend. Each call has its own timeout, never follows a redirect, and reports
 * failure as data: a message with no secret in it (no hook URL, token or key) and whether a later
 * attempt may succeed.
 */
export type SendResult = { ok: true } | { ok: false; error: string; retryable: boolean };

const USER_AGENT = 'tally-spend/1.0';
/** Resend takes at most 50 recipients per e-mail (vendor-apis.md §7.2). */
const MAX_EMAIL_RECIPIENTS = 50;

type Post = { url: string; headers: Record<string, string>; body: string; dispatcher?: Agent; vendor: 'slack' | 'webhook' | 'resend' };
type Answer = { status: number; text: string } | { error: string; retryable: boolean };

async function post(ctx: AppContext, what: string, request: Post): Promise<Answer> {
  const timeoutMs = ctx.config.spend.deliveryTimeoutMs;
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: { 'user-agent': USER_AGENT, ...request.headers },
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      ...(request.dispatcher ? ({ dispatcher: request.dispatcher } as object) : {}),
    });
    ctx.metrics.outboundCall(request.vendor, response.status);
    // Only a short prefix is read: a receiver's answer is not ours to store.
    const text = (await response.text().catch(() => '')).slice(0, 500);
    return { status: response.status, text };
  } catch (err) {
    ctx.metrics.outboundCall(request.vendor, 'error');
    const name = (err as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { error: `${what} did not answer within ${timeoutMs} ms`, retryable: true };
    const refusal = guardRefusalOf(err);
    if (refusal) return { error: refusal, retryable: false };
    return { error: `${what} could not be reached`, retryable: true };
  }
}

/** Chat: `{"text": …}`; Slack answers 200 `ok`, errors as a plain-text code. */
export async function sendSlack(ctx: AppContext, hookUrl: string, event: SpendEvent): Promise<SendResult> {
  const answer = await post(ctx, 'Slack', { vendor: 'slack', url: hookUrl, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: slackText(event) }) });
  if ('error' in answer) return { ok: false, ...answer };
  if (answer.status === 200) return { ok: true };
  const code = /^[a-z_]{1,64}$/.test(answer.text.trim()) ? ` ${answer.text.trim()}` : '';
  return { ok: false, error: `Slack answered HTTP ${answer.status}${code}`, retryable: isRetryableStatus(answer.status) };
}

/** Generic webhook: signed JSON; any 2xx is accepted. The receiver's body is never stored. */
export async function sendWebhook(ctx: AppContext, target: { url: string; secret: string | null }, event: SpendEvent, deliveryId: string): Promise<SendResult> {
  const body = webhookBody(event);
  const headers = webhookHeaders({ type: event.type, body, secret: target.secret, timestampSeconds: Math.floor(ctx.clock.now().getTime() / 1000), deliveryId });
  const answer = await post(ctx, 'The webhook', { vendor: 'webhook', url: target.url, headers, body, dispatcher: dispatcherFor(ctx) });
  if ('error' in answer) return { ok: false, ...answer };
  if (answer.status >= 200 && answer.status < 300) return { ok: true };
  return { ok: false, error: `The webhook answered HTTP ${answer.status}`, retryable: isRetryableStatus(answer.status) };
}

/**
 * E-mail through Resend, from APP_SPEND_ALERT_FROM to the alert e-mails. The delivery id is the
 * Idempotency-Key, so a retry after a lost answer does not send a second e-mail.
 */
export async function sendEmail(ctx: AppContext, recipients: string[], event: SpendEvent, deliveryId: string): Promise<SendResult> {
  const { apiKey, baseUrl } = ctx.config.resend;
  const from = ctx.config.spend.alertFrom;
  if (!apiKey) return { ok: false, error: 'No e-mail provider key is configured (APP_RESEND_API_KEY)', retryable: false };
  if (!from) return { ok: false, error: 'No sender address is configured (APP_SPEND_ALERT_FROM)', retryable: false };
  if (recipients.length > MAX_EMAIL_RECIPIENTS) return { ok: false, error: `More than ${MAX_EMAIL_RECIPIENTS} alert e-mail recipients`, retryable: false };
  const { subject, text } = emailContent(event);
  const answer = await post(ctx, 'Resend', {
    vendor: 'resend',
    url: `${baseUrl.replace(/\/+$/, '')}/emails`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'idempotency-key': `spend-delivery-${deliveryId}` },
    body: JSON.stringify({ from, to: recipients, subject, text }),
  });
  if ('error' in answer) return { ok: false, ...answer };
  if (answer.status === 200) return { ok: true };
  return { ok: false, error: `Resend answered HTTP ${answer.status}${resendReason(answer.text)}`, retryable: isRetryableStatus(answer.status) };
}

/** The alert e-mails as a list ("a@x.com, b@y.com" → two). */
export function recipientsOf(settings: SpendSettings): string[] {
  return (settings.alertEmails ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
}

/** Resend's `{name, message}` (never the raw body), short. */
function resendReason(text: string): string {
  try {
    const body = JSON.parse(text) as { name?: unknown; message?: unknown };
    const name = typeof body.name === 'string' ? body.name : '';
    const message = typeof body.message === 'string' ? body.message.slice(0, 200) : '';
    return name || message ? ` ${[name, message].filter(Boolean).join(': ')}` : '';
  } catch {
    return '';
  }
}

function dispatcherFor(ctx: AppContext): Agent {
  return sharedGuardedDispatcher(outboundPolicyOf(ctx.config));
}
