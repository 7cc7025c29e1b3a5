import type { ReactNode } from 'react';
import { UnitPrice } from '../../components/figures';
import { formatCredits } from '../../format';
import type { RuleDraft } from './rule-draft';

/** A rate in the plan's currency, or in tokens or credits when the cost says so. */
function Rate({ value, currency, unit }: { value: string; currency: string; unit?: RuleDraft['costUnit'] }) {
  if (unit === 'TOKENS' || unit === 'CREDITS') return <>{`${formatCredits(value)} ${unit.toLowerCase()}`}</>;
  return <UnitPrice amount={value} currency={currency} />;
}

function Line({ label, children }: { label: string; children: ReactNode }) {
  return (
    <li>
      <span className="muted">{label}:</span> {children}
    </li>
  );
}

function Pricing({ d, currency }: { d: RuleDraft; currency: string }) {
  if (d.model === '') return <Line label="Pricing">included, no usage pricing</Line>;
  const per = ` per ${d.unit}`;
  return (
    <>
      {d.model === 'usage' ? (
        <Line label="Usage price">
          <Rate value={d.pricePerUnit} currency={currency} />
          {per}
        </Line>
      ) : (
        d.tiers.map((t, i) => (
          <Line key={i} label={t.upTo ? `Tier up to ${formatCredits(t.upTo)}` : 'Tier above'}>
            <Rate value={t.pricePerUnit} currency={currency} />
            {per}
            {t.flatFee ? (
              <>
                {' + '}
                <Rate value={t.flatFee} currency={currency} /> flat
              </>
            ) : null}
          </Line>
        ))
      )}
      <Line label="Limit">{d.maxUsage && Number(d.maxUsage) !== 0 ? `${formatCredits(d.maxUsage)} ${d.unit}` : 'unlimited'}</Line>
      <Line label="Usage counts">{d.resetMode === 'reset' ? 'from each period start' : 'since subscribing (accumulates)'}</Line>
    </>
  );
}

function Cost({ d, currency }: { d: RuleDraft; currency: string }) {
  if (d.costModel === '') return null;
  if (d.costModel === 'simple')
    return (
      <Line label="Cost">
        <Rate value={d.costPerUnit} currency={currency} unit={d.costUnit} /> per unit
      </Line>
    );
  return (
    <Line label="Cost per model">
      input <Rate value={d.inputCost} currency={currency} unit={d.costUnit} />
      {d.outputCost ? (
        <>
          , output <Rate value={d.outputCost} currency={currency} unit={d.costUnit} />
        </>
      ) : null}
      {d.modelCosts.map((m) => (
        <span key={m.model}>
          {` · ${m.model}: input `}
          <Rate value={m.input} currency={currency} unit={d.costUnit} />, output <Rate value={m.output} currency={currency} unit={d.costUnit} />
        </span>
      ))}
    </Line>
  );
}

/** A rule in words and figures: its pricing (usage or tiers), limit, reset mode, cost and credit model. */
export function RuleSummary({ d, currency, creditModel }: { d: RuleDraft; currency: string; creditModel: string | null }) {
  return (
    <ul className="rule-summary">
      <Pricing d={d} currency={currency} />
      <Cost d={d} currency={currency} />
      {creditModel ? <Line label="Draws credits">{creditModel}</Line> : null}
    </ul>
  );
}
