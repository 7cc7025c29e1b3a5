import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api';
import { decimalText, formatCount, multiplyDecimals } from '../../format';
import { Empty, PageHeader, QueryView } from '../../ui';
import { DayChart, type ChartSeries } from '../../chart';
import { dollars, StackedBars } from './common';

type Report = Schemas['SpendUsageReport'];
const tokens = (v: number | string | null | undefined) => formatCount(Number(decimalText(v)));
/** Cents as exact dollar text for the chart (plotted as a picture; its table shows them with `dollars`). */
const dollarText = (cents: number | string | null | undefined) => multiplyDecimals(cents, '0.01');
const showDollars = (value: string) => dollars(multiplyDecimals(value, 100));

/** Usage over a window: cost by day, tokens by model (stacked by kind), people where attribution is on, unpriced models flagged. */
export default function UsagePage() {
  const [window, setWindow] = useState<{ from?: string; to?: string }>({});
  const report = useQuery({
    queryKey: ['spend-usage', window],
    queryFn: () => unwrap(api.GET('/api/v1/spend/reports/usage', { params: { query: window } })),
  });
  return (
    <section>
      <PageHeader title="Usage" />
      <WindowForm onApply={setWindow} />
      <QueryView query={report} what="usage">
        {(r) => <UsageReport r={r} />}
      </QueryView>
    </section>
  );
}

export function WindowForm({ onApply, label = 'Window' }: { onApply: (w: { from?: string; to?: string }) => void; label?: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply({ ...(from ? { from } : {}), ...(to ? { to } : {}) });
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={label}>
      <label>
        From
        <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label>
        To
        <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      <button type="submit">Show</button>
    </form>
  );
}

function UsageReport({ r }: { r: Report }) {
  const days = useMemo(() => r.byDay.map((d) => d.date.slice(0, 10)), [r]);
  const daySeries = useMemo<ChartSeries[]>(
    () => [
      { label: 'Metered cost ($)', values: r.byDay.map((d) => dollarText(d.meteredCostCents)), color: '#2553c7', bars: true, show: showDollars },
      { label: 'Vendor cost ($)', values: r.byDay.map((d) => dollarText(d.vendorCostCents)), color: '#d9822b', show: showDollars },
    ],
    [r],
  );
  const models = useMemo(() => r.byModel.map((m) => m.model), [r]);
  const modelSeries = useMemo(
    () => [
      { name: 'Uncached input', values: r.byModel.map((m) => Number(decimalText(m.uncachedInputTokens))) },
      { name: 'Cache read', values: r.byModel.map((m) => Number(decimalText(m.cacheReadTokens))) },
      { name: 'Cache write', values: r.byModel.map((m) => Number(decimalText(m.cacheCreationTokens))) },
      { name: 'Output', values: r.byModel.map((m) => Number(decimalText(m.outputTokens))) },
    ],
    [r],
  );
  return (
    <>
      <dl className="stats">
        <div className="stat">
          <dt>Metered cost</dt>
          <dd data-testid="metered-total">{dollars(r.totals.meteredCostCents)}</dd>
        </div>
        <div className="stat">
          <dt>Vendor cost</dt>
          <dd>{dollars(r.totals.vendorCostCents)}</dd>
        </div>
        <div className="stat">
          <dt>Output tokens</dt>
          <dd>{tokens(r.totals.outputTokens)}</dd>
        </div>
        <div className="stat">
          <dt>Requests</dt>
          <dd>{tokens(r.totals.requests)}</dd>
        </div>
      </dl>
      <p className="muted">
        {r.from} → {r.to}
      </p>
      {r.unpricedModels.length > 0 ? (
        <p className="notice" role="note">
          Unpriced models (no price-book row; their metered cost is unknown): {r.unpricedModels.join(', ')}
        </p>
      ) : null}
      {r.byDay.length === 0 ? (
        <Empty>No usage in this window.</Empty>
      ) : (
        <>
          <DayChart title="Cost by day" days={days} series={daySeries} />
          <h2>Tokens by model</h2>
          <StackedBars label="Tokens by model, stacked by kind" days={models} series={modelSeries} />
        </>
      )}
      <h2>By model</h2>
      <table aria-label="Usage by model">
        <thead>
          <tr>
            <th>Model</th>
            <th>Provider</th>
            <th className="num">Uncached input</th>
            <th className="num">Cache read</th>
            <th className="num">Cache write</th>
            <th className="num">Output</th>
            <th className="num">Metered</th>
            <th className="num">Vendor</th>
          </tr>
        </thead>
        <tbody>
          {r.byModel.map((m) => (
            <tr key={`${m.provider}:${m.model}`}>
              <td>
                {m.model} {m.priced ? (m.pricedAs && m.pricedAs !== m.model ? <span className="muted small">as {m.pricedAs}</span> : null) : <span className="badge badge-due">unpriced</span>}
              </td>
              <td>{m.provider}</td>
              <td className="num">{tokens(m.uncachedInputTokens)}</td>
              <td className="num">{tokens(m.cacheReadTokens)}</td>
              <td className="num">{tokens(m.cacheCreationTokens)}</td>
              <td className="num">{tokens(m.outputTokens)}</td>
              <td className="num">{dollars(m.meteredCostCents)}</td>
              <td className="num">{dollars(m.vendorCostCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {r.byActor.length > 0 ? (
        <>
          <h2>By person</h2>
          <table aria-label="Usage by person">
            <thead>
              <tr>
                <th>Person</th>
                <th>Provider</th>
                <th>Tool</th>
                <th className="num">Tokens</th>
                <th className="num">Sessions</th>
                <th className="num">Metered</th>
                <th className="num">Vendor</th>
              </tr>
            </thead>
            <tbody>
              {r.byActor.map((a) => (
                <tr key={`${a.provider}:${a.actor}:${a.tool ?? ''}`}>
                  <td>{a.actor}</td>
                  <td>{a.provider}</td>
                  <td>{a.tool ?? '—'}</td>
                  <td className="num">{tokens(a.totalTokens)}</td>
                  <td className="num">{a.sessions ?? '—'}</td>
                  <td className="num">{dollars(a.meteredCostCents)}</td>
                  <td className="num">{dollars(a.vendorCostCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </>
  );
}
