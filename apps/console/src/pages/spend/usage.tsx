import { useMemo, useState } from 'react';
import type { Schemas } from '../../api';
import { DayChart, type ChartSeries } from '../../components/chart';
import { DataTable, type Column } from '../../components/data-table';
import { Stats } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { EmptyState, PageHeader, QueryView } from '../../components/ui';
import { decimalText, formatCount, multiplyDecimals } from '../../format';
import { useSpendUsage, type Window } from '../../queries/spend';
import { dollars, StackedBars } from './common';

type Report = Schemas['SpendUsageReport'];
type ModelRow = Report['byModel'][number];
type ActorRow = Report['byActor'][number];
const tokens = (v: number | string | null | undefined) => formatCount(Number(decimalText(v)));
/** Cents as exact dollar text for the chart (plotted as a picture; its table shows them with `dollars`). */
const dollarText = (cents: number | string | null | undefined) => multiplyDecimals(cents, '0.01');
const showDollars = (value: string) => dollars(multiplyDecimals(value, 100));

/** Usage over a window: cost by day, tokens by model (stacked by kind), people where attribution is on, unpriced models flagged. */
export default function UsagePage() {
  const [window, setWindow] = useState<Window>({});
  const report = useSpendUsage(window);
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

export function WindowForm({ onApply, label = 'Window' }: { onApply: (w: Window) => void; label?: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const apply = () => onApply({ ...(from ? { from } : {}), ...(to ? { to } : {}) });
  return (
    <Form access="read" label={label} submission={{ isPending: false, error: null }} onSubmit={apply} submit="Show" failed="">
      <Field label="From">
        <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </Field>
      <Field label="To">
        <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
      </Field>
    </Form>
  );
}

const MODEL_COLUMNS: Column<ModelRow>[] = [
  {
    header: 'Model',
    cell: (m) => (
      <>
        {m.model} {m.priced ? (m.pricedAs && m.pricedAs !== m.model ? <span className="muted small">as {m.pricedAs}</span> : null) : <span className="badge badge-due">unpriced</span>}
      </>
    ),
  },
  { header: 'Provider', cell: (m) => m.provider },
  { header: 'Uncached input', num: true, cell: (m) => tokens(m.uncachedInputTokens) },
  { header: 'Cache read', num: true, cell: (m) => tokens(m.cacheReadTokens) },
  { header: 'Cache write', num: true, cell: (m) => tokens(m.cacheCreationTokens) },
  { header: 'Output', num: true, cell: (m) => tokens(m.outputTokens) },
  { header: 'Metered', num: true, cell: (m) => dollars(m.meteredCostCents) },
  { header: 'Vendor', num: true, cell: (m) => dollars(m.vendorCostCents) },
];

const ACTOR_COLUMNS: Column<ActorRow>[] = [
  { header: 'Person', cell: (a) => a.actor },
  { header: 'Provider', cell: (a) => a.provider },
  { header: 'Tool', cell: (a) => a.tool ?? '—' },
  { header: 'Tokens', num: true, cell: (a) => tokens(a.totalTokens) },
  { header: 'Sessions', num: true, cell: (a) => a.sessions ?? '—' },
  { header: 'Metered', num: true, cell: (a) => dollars(a.meteredCostCents) },
  { header: 'Vendor', num: true, cell: (a) => dollars(a.vendorCostCents) },
];

function UsageReport({ r }: { r: Report }) {
  return (
    <>
      <Stats
        items={[
          { label: 'Metered cost', testId: 'metered-total', value: dollars(r.totals.meteredCostCents) },
          { label: 'Vendor cost', value: dollars(r.totals.vendorCostCents) },
          { label: 'Output tokens', value: tokens(r.totals.outputTokens) },
          { label: 'Requests', value: tokens(r.totals.requests) },
        ]}
      />
      <p className="muted">
        {r.from} → {r.to}
      </p>
      {r.unpricedModels.length > 0 ? (
        <p className="notice" role="note">
          Unpriced models (no price-book row; their metered cost is unknown): {r.unpricedModels.join(', ')}
        </p>
      ) : null}
      {r.byDay.length === 0 ? <EmptyState>No usage in this window.</EmptyState> : <UsageCharts r={r} />}
      <h2>By model</h2>
      <DataTable label="Usage by model" columns={MODEL_COLUMNS} rows={r.byModel} rowKey={(m) => `${m.provider}:${m.model}`} empty="No model used in this window." />
      {r.byActor.length > 0 ? (
        <>
          <h2>By person</h2>
          <DataTable label="Usage by person" columns={ACTOR_COLUMNS} rows={r.byActor} rowKey={(a) => `${a.provider}:${a.actor}:${a.tool ?? ''}`} empty="" />
        </>
      ) : null}
    </>
  );
}

function UsageCharts({ r }: { r: Report }) {
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
      <DayChart title="Cost by day" days={days} series={daySeries} />
      <h2>Tokens by model</h2>
      <StackedBars label="Tokens by model, stacked by kind" days={models} series={modelSeries} />
    </>
  );
}
