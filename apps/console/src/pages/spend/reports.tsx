import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { Stats } from '../../components/figures';
import { PageHeader, QueryView } from '../../components/ui';
import { decimalText, formatCount } from '../../format';
import { useOutcomes, usePnl, useReconcile, useSavings, type Window } from '../../queries/spend';
import { dollars } from './common';
import { SimulateForm } from './reports-simulate';
import { WindowForm } from './usage';

/** A share in [0, 1] as exact decimal text ("0.1234") shown as a percentage ("12.34 %"), no float. */
export function percentText(share: number | string): string {
  const text = decimalText(share);
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const point = whole.length + 2;
  const rest = digits.slice(point).replace(/0+$/, '');
  return `${digits.slice(0, point).replace(/^0+(?=\d)/, '')}${rest ? `.${rest}` : ''} %`;
}

/**
 * Spend reports (contract §7.9): outcomes and cost per outcome, cache savings, the simulate form,
 * the feature P&L, and reconcile. Each report is its own query, so each paints when it arrives.
 */
export default function SpendReportsPage() {
  const [window, setWindow] = useState<Window>({});
  const [reconcileWindow, setReconcileWindow] = useState<Window>({});
  const outcomes = useOutcomes(window);
  const savings = useSavings(window);
  const pnl = usePnl(window);
  const reconcile = useReconcile(reconcileWindow);
  return (
    <section>
      <PageHeader title="Spend reports" />
      <WindowForm onApply={setWindow} />
      <h2>Outcomes</h2>
      <QueryView query={outcomes} what="the outcome report">
        {(r) => <Outcomes r={r} />}
      </QueryView>
      <h2>Cache savings</h2>
      <QueryView query={savings} what="the savings report">
        {(r) => <Savings r={r} />}
      </QueryView>
      <h2>Simulate a model switch</h2>
      <SimulateForm models={savings.data?.byModel.map((m) => m.model).filter((m): m is string => m !== null) ?? []} />
      <h2>Feature P&amp;L</h2>
      <QueryView query={pnl} what="the P&L">
        {(r) => <Pnl r={r} />}
      </QueryView>
      <h2>Reconcile</h2>
      <p className="muted">Metered (our price book) against what the vendor reported and what it invoiced; window inclusive, default the last full month.</p>
      <WindowForm onApply={setReconcileWindow} label="Reconcile window" />
      <QueryView query={reconcile} what="the reconciliation">
        {(r) => <Reconcile r={r} />}
      </QueryView>
    </section>
  );
}

const perOutcome = (cents: number | string | null | undefined) => (cents === null || cents === undefined ? '—' : dollars(cents));

type Outcome = Schemas['SpendOutcomeReport']['rows'][number];
type Saving = Schemas['SpendSavingsReport']['byModel'][number];
type PnlRow = Schemas['SpendPnlReport']['rows'][number];
type ReconcileRow = Schemas['SpendReconcileReport']['rows'][number];

const OUTCOME_COLUMNS: Column<Outcome>[] = [
  { header: 'Unit', cell: (row) => row.name },
  { header: 'Type', cell: (row) => row.type },
  { header: 'Outcomes', num: true, cell: (row) => formatCount(row.outcomes) },
  { header: 'AI-assisted', num: true, cell: (row) => formatCount(row.aiAssisted) },
  { header: 'Spend', num: true, cell: (row) => dollars(row.spendCents) },
  { header: 'Cost per outcome', num: true, cell: (row) => perOutcome(row.costPerOutcomeCents) },
];

function Outcomes({ r }: { r: Schemas['SpendOutcomeReport'] }) {
  return (
    <>
      <Stats
        items={[
          { label: 'Outcomes', testId: 'total-outcomes', value: formatCount(r.totalOutcomes) },
          { label: 'AI-assisted', value: formatCount(r.aiAssistedOutcomes) },
          { label: 'Unattributed', value: formatCount(r.unattributedOutcomes) },
          { label: 'Spend', testId: 'outcome-spend', value: dollars(r.totalSpendCents) },
          { label: 'Cost per outcome', testId: 'cost-per-outcome', value: perOutcome(r.costPerOutcomeCents) },
        ]}
      />
      <p className="muted">
        {r.from} → {r.to}
      </p>
      <DataTable label="Outcomes per unit" columns={OUTCOME_COLUMNS} rows={r.rows} rowKey={(row) => row.unitId} empty="No spend unit yet." />
    </>
  );
}

const SAVING_COLUMNS: Column<Saving>[] = [
  {
    header: 'Model',
    cell: (m) => (
      <>
        {m.model} {m.priced ? null : <span className="badge badge-due">unpriced</span>}
        {m.cacheRatesKnown ? null : <span className="muted small"> estimate (cache rate missing)</span>}
      </>
    ),
  },
  { header: 'Provider', cell: (m) => m.provider },
  { header: 'Cache share', num: true, cell: (m) => percentText(m.cacheShare) },
  { header: 'Input side as billed', num: true, cell: (m) => dollars(m.inputCostCents) },
  { header: 'Without cache', num: true, cell: (m) => dollars(m.noCacheCostCents) },
  { header: 'Saved', num: true, cell: (m) => dollars(m.savedCents) },
];

function Savings({ r }: { r: Schemas['SpendSavingsReport'] }) {
  return (
    <>
      <Stats
        items={[
          { label: 'Saved by caching', testId: 'saved-total', value: dollars(r.totals.savedCents) },
          { label: 'Input side as billed', value: dollars(r.totals.inputCostCents) },
          { label: 'Without cache', value: dollars(r.totals.noCacheCostCents) },
          { label: 'Cache share', value: percentText(r.totals.cacheShare) },
        ]}
      />
      {r.unpricedModels.length > 0 ? (
        <p className="notice" role="note">
          Unpriced models (their tokens add no cents): {r.unpricedModels.join(', ')}
        </p>
      ) : null}
      <DataTable label="Savings by model" columns={SAVING_COLUMNS} rows={r.byModel} rowKey={(m) => `${m.provider}:${m.model}`} empty="No usage in this window." />
    </>
  );
}

const PNL_COLUMNS: Column<PnlRow>[] = [
  { header: 'Project', cell: (row) => row.name },
  { header: 'Feature', cell: (row) => <code>{row.featureKey ?? '(deleted)'}</code> },
  { header: 'Build cost', num: true, cell: (row) => dollars(row.buildCents) },
  { header: 'Outcomes', num: true, cell: (row) => formatCount(row.outcomes) },
  { header: 'Build per outcome', num: true, cell: (row) => perOutcome(row.buildPerOutcomeCents) },
  { header: 'Revenue', num: true, cell: (row) => dollars(row.revenueCents) },
  { header: 'Serve cost', num: true, cell: (row) => dollars(row.serveCostCents) },
  { header: 'Serve margin', num: true, cell: (row) => dollars(row.serveMarginCents) },
  { header: 'Net', num: true, cell: (row) => dollars(row.netCents) },
];

function Pnl({ r }: { r: Schemas['SpendPnlReport'] }) {
  const totals = (
    <tr>
      <th scope="row" colSpan={2}>
        Total
      </th>
      <td className="num">{dollars(r.totalBuildCents)}</td>
      <td />
      <td />
      <td className="num">{dollars(r.totalRevenueCents)}</td>
      <td className="num">{dollars(r.totalServeCostCents)}</td>
      <td />
      <td className="num" data-testid="pnl-net">
        {dollars(r.totalNetCents)}
      </td>
    </tr>
  );
  return (
    <>
      <DataTable label="Feature P&L" columns={PNL_COLUMNS} rows={r.rows} rowKey={(row) => row.unitId} empty="No PROJECT unit is linked to a feature." footer={totals} />
      {r.unlinkedProjects.length > 0 ? <p className="muted">Projects without a feature (left out of the totals): {r.unlinkedProjects.join(', ')}</p> : null}
    </>
  );
}

const RECONCILE_COLUMNS: Column<ReconcileRow>[] = [
  { header: 'Provider', cell: (row) => row.provider },
  {
    header: 'Metered',
    num: true,
    cell: (row) => (
      <>
        {dollars(row.meteredCents)}
        {row.meteredIsEstimate ? <span className="muted small"> estimate</span> : null}
      </>
    ),
  },
  { header: 'Vendor reported', num: true, cell: (row) => dollars(row.vendorReportedCents) },
  {
    header: 'Invoiced',
    num: true,
    cell: (row) => (
      <>
        {dollars(row.invoicedCents)}{' '}
        <span className="muted small">
          ({formatCount(row.invoiceCount)} {row.invoiceCount === 1 ? 'invoice' : 'invoices'})
        </span>
      </>
    ),
  },
  { header: 'Metered − vendor', num: true, cell: (row) => dollars(row.meteredVsVendorCents) },
  { header: 'Vendor − invoice', num: true, cell: (row) => (row.vendorVsInvoiceCents === null ? 'no invoice' : dollars(row.vendorVsInvoiceCents)) },
];

function Reconcile({ r }: { r: Schemas['SpendReconcileReport'] }) {
  return (
    <>
      <p className="muted">
        {r.from} → {r.to} (inclusive)
      </p>
      <DataTable label="Reconcile" columns={RECONCILE_COLUMNS} rows={r.rows} rowKey={(row) => row.provider} empty="Nothing metered, reported or invoiced in this window." />
    </>
  );
}
