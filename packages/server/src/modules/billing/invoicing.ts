import type { Tx } from '../../platform/db/database.js';
import type { InvoiceStatus, InvoiceType } from './tables.js';
import { newId } from '../../platform/ids.js';
import { Money, dec, roundUnitPrice, type Decimal } from '../../platform/money.js';
import { type Plan, computeGraduatedCost, fromStoredRuleValue } from '../catalog/index.js';
import * as catalog from '../catalog/index.js';
import { recordInvoiceEvent } from './outbound.js';
import { insertInvoice, recordFinalized, updateInvoice } from './finalisation.js';
import * as repo from './repo.js';

/**
 * A line as billing computes it. `quantity` defaults to 1 and `unitPrice` to the rounded amount
 * (proration, credit, adjustment lines: §4.2); usage lines give their units and the rule's price,
 * graduated usage a null unit price.
 */
export type InvoiceLine = { description: string; amount: Decimal; featureId?: string | null; quantity?: Decimal; unitPrice?: Decimal | null };

type RaiseInvoiceInput = {
  subscription: repo.SubscriptionRow;
  type: InvoiceType;
  status: InvoiceStatus;
  currency: string;
  dueDate: Date;
  period: { start: Date; end: Date };
  lines: InvoiceLine[];
  now: Date;
  /** Shown on the invoice as it is; a paid upgrade's invoice names its change (`planChangeId`). */
  metadata?: Record<string, unknown>;
  /** Chosen by a caller that names the invoice before writing it (a paid upgrade reserves money under it). */
  id?: string;
};

/**
 * Writes an invoice and its lines. Each line is rounded to the invoice currency's minor units
 * (HALF_UP: JPY 0, USD 2, KWD 3) and the amount is the sum of the rounded lines, so the total always
 * equals what the lines show. A DUE invoice for zero is settled at once. Records `invoice.created`,
 * `invoice.finalized` for one created numbered (any status but PENDING and VOID), then `invoice.paid` for one created PAID (free plan, zero rollover) unless it is a CREDIT invoice.
 */
export async function raiseInvoice(tx: Tx, input: RaiseInvoiceInput) {
  const lines = roundLines(input.lines, input.currency);
  const amount = sumLines(lines, Money.zero(input.currency));
  const settledAtOnce = input.status === 'DUE' && amount.isZero();
  const invoice = await insertInvoice(tx, {
    id: input.id ?? newId(),
    account_id: input.subscription.account_id,
    subscription_id: input.subscription.id,
    customer_id: input.subscription.customer_id,
    status: settledAtOnce ? 'PAID' : input.status,
    type: input.type,
    amount: amount.toFixed(),
    currency: input.currency,
    due_date: input.dueDate,
    period_start: input.period.start,
    period_end: input.period.end,
    paid_at: settledAtOnce || input.status === 'PAID' ? input.now : null,
    number: null,
    finalized_at: null,
    document_snapshot: null,
    metadata: input.metadata ?? {},
    created_at: input.now,
    modified_at: input.now,
  });
  const items = await insertLines(tx, invoice, lines, 0, input.now);
  await recordInvoiceEvent(tx, 'invoice.created', invoice, input.now);
  if (invoice.number !== null) await recordFinalized(tx, invoice);
  if (invoice.status === 'PAID' && invoice.type !== 'CREDIT') await recordInvoiceEvent(tx, 'invoice.paid', invoice, input.now);
  return { invoice, items };
}

/** Finalises a PENDING (in-arrears) invoice: adds its lines and makes it DUE for their total (PAID, with `invoice.paid`, for zero). */
export async function finaliseInvoice(tx: Tx, invoice: repo.InvoiceRow, lines: InvoiceLine[], now: Date) {
  const existing = (await repo.listInvoiceItems(tx, invoice.account_id, [invoice.id])).length;
  const rounded = roundLines(lines, invoice.currency);
  await insertLines(tx, invoice, rounded, existing, now);
  const amount = sumLines(rounded, Money.of(invoice.amount, invoice.currency));
  const settled = amount.isZero();
  const updated = await updateInvoice(tx, { ...invoice, amount: amount.toFixed(), status: settled ? 'PAID' : 'DUE', paid_at: settled ? now : null, modified_at: now });
  if (settled) await recordInvoiceEvent(tx, 'invoice.paid', updated, now);
  return updated;
}

type RoundedLine = Omit<InvoiceLine, 'amount'> & { amount: Money };

/** Each line is rounded on its own to the currency's minor units (HALF_UP); totals are sums of rounded lines. */
const roundLines = (lines: InvoiceLine[], currency: string): RoundedLine[] => lines.map((l) => ({ ...l, amount: Money.of(l.amount, currency).rounded() }));
const sumLines = (lines: RoundedLine[], start: Money) => lines.reduce((sum, l) => sum.plus(l.amount), start);

async function insertLines(tx: Tx, invoice: repo.InvoiceRow, lines: RoundedLine[], firstPosition: number, now: Date) {
  const items = lines.map((l, i) => ({
    id: newId(),
    account_id: invoice.account_id,
    invoice_id: invoice.id,
    position: firstPosition + i,
    feature_id: l.featureId ?? null,
    charge_amount: l.amount.toFixed(),
    quantity: (l.quantity ?? dec(1)).toFixed(),
    unit_price: l.unitPrice === null ? null : roundUnitPrice(l.unitPrice ?? l.amount.amount).toFixed(),
    description: l.description,
    created_at: now,
    modified_at: now,
  }));
  await repo.insertInvoiceItems(tx, items);
  return items;
}

export function basePriceLine(plan: Plan): InvoiceLine {
  const price = dec(plan.price_amount ?? '0');
  return { description: `Plan base price: ${plan.name ?? plan.key}`, amount: price, quantity: dec(1), unitPrice: price };
}

/**
 * Usage lines of one closed period, from the counters kept at ingestion. Simple usage bills the
 * period's summed revenue; graduated pricing applies the tier formula to the period's total units.
 */
export async function usageLines(tx: Tx, subscription: repo.SubscriptionRow, periodStart: Date): Promise<InvoiceLine[]> {
  const counters = await repo.lockPeriodCounters(tx, subscription.account_id, subscription.id, periodStart);
  const lines: InvoiceLine[] = [];
  for (const c of counters) {
    const used = dec(c.used);
    if (used.isZero()) continue;
    const rule = await catalog.findRule(tx, subscription.account_id, subscription.plan_id, c.feature_id);
    const pricing = rule ? fromStoredRuleValue(rule.value).pricing : null;
    const graduated = pricing?.model === 'graduated' && pricing.tiers;
    const amount = graduated ? computeGraduatedCost(pricing.tiers!, used) : dec(c.revenue);
    const pricePerUnit = pricing?.pricePerUnit;
    lines.push({
      description: `Usage for ${c.feature_key}: ${used.toFixed()} units (Model: ${pricing?.model ?? 'usage'})`,
      amount,
      featureId: c.feature_id,
      quantity: used,
      unitPrice: graduated || pricePerUnit === undefined || pricePerUnit === null ? null : dec(pricePerUnit),
    });
  }
  return lines;
}
