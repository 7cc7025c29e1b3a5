import { formatCredits } from '../../format';

/** A credit-backed event's receipt: credits drawn, usage covered and left to bill, the weight row matched. */
export function Receipt({ ctx, idempotencyKey }: { ctx: Record<string, unknown>; idempotencyKey: string }) {
  const rows: [string, unknown][] = [
    ['Credits drawn', ctx.credit_deducted],
    ['Usage covered by credits', ctx.usage_covered_by_credits],
    ['Usage left to bill', ctx.credit_remaining_usage],
    ['Weight match', ctx.credit_weight_match],
    ['Weight row', ctx.credit_weight_id],
  ];
  return (
    <dl className="receipt" aria-label={`Receipt ${idempotencyKey}`}>
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            {value === null || value === undefined
              ? '—'
              : label.startsWith('Weight')
                ? <code>{String(value)}</code>
                : formatCredits(value as string)}
          </dd>
        </div>
      ))}
    </dl>
  );
}
