import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Schemas } from '../../api';
import { decimalText, formatCount } from '../../format';
import { Empty, PageHeader, QueryView } from '../../ui';
import { dollars } from './common';
import { SimulateForm } from './reports-simulate';
import { WindowForm } from './usage';

type Window = { from?: string; to?: string };

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
  const outcomes = useQuery({ queryKey: ['spend-outcomes', window], queryFn: () => unwrap(api.GET('/api/v1/spend/reports/outcomes', { params: { query: window } })) });
  const savings = useQuery({ queryKey: ['spend-savings', window], queryFn: () => unwrap(api.GET('/api/v1/spend/reports/savings', { params: { query: window } })) });
  const pnl = useQuery({ queryKey: ['spend-pnl', window], queryFn: () => unwrap(api.GET('/api/v1/spend/reports/pnl', { params: { query: window } })) });
  const reconcile = useQuery({
    queryKey: ['spend-reconcile', reconcileWindow],
    queryFn: () => unwrap(api.GET('/api/v1/spend/reports/reconcile', { params: { query: reconcileWindow } })),
  });
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

function Outcomes({ r }: { r: Schemas['SpendOutcomeReport'] }) {
  return (
    <>
      <dl className="stats">
        <div className="stat">
          <dt>Outcomes</dt>
          <dd data-testid="total-outcomes">{formatCount(r.totalOutcomes)}</dd>
        </div>
        <div className="stat">
          <dt>AI-assisted</dt>
          <dd>{formatCount(r.aiAssistedOutcomes)}</dd>
        </div>
        <div className="stat">
          <dt>Unattributed</dt>
          <dd>{formatCount(r.unattributedOutcomes)}</dd>
        </div>
        <div className="stat">
          <dt>Spend</dt>
          <dd data-testid="outcome-spend">{dollars(r.totalSpendCents)}</dd>
        </div>
        <div className="stat">
          <dt>Cost per outcome</dt>
          <dd data-testid="cost-per-outcome">{perOutcome(r.costPerOutcomeCents)}</dd>
        </div>
      </dl>
      <p className="muted">
        {r.from} → {r.to}
      </p>
      {r.rows.length === 0 ? (
        <Empty>No spend unit yet.</Empty>
      ) : (
        <table aria-label="Outcomes per unit">
          <thead>
            <tr>
              <th scope="col">Unit</th>
              <th scope="col">Type</th>
              <th scope="col" className="num">Outcomes</th>
              <th scope="col" className="num">AI-assisted</th>
              <th scope="col" className="num">Spend</th>
              <th scope="col" className="num">Cost per outcome</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.map((row) => (
              <tr key={row.unitId}>
                <td>{row.name}</td>
                <td>{row.type}</td>
                <td className="num">{formatCount(row.outcomes)}</td>
                <td className="num">{formatCount(row.aiAssisted)}</td>
                <td className="num">{dollars(row.spendCents)}</td>
                <td className="num">{perOutcome(row.costPerOutcomeCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Savings({ r }: { r: Schemas['SpendSavingsReport'] }) {
  return (
    <>
      <dl className="stats">
        <div className="stat">
          <dt>Saved by caching</dt>
          <dd data-testid="saved-total">{dollars(r.totals.savedCents)}</dd>
        </div>
        <div className="stat">
          <dt>Input side as billed</dt>
          <dd>{dollars(r.totals.inputCostCents)}</dd>
        </div>
        <div className="stat">
          <dt>Without cache</dt>
          <dd>{dollars(r.totals.noCacheCostCents)}</dd>
        </div>
        <div className="stat">
          <dt>Cache share</dt>
          <dd>{percentText(r.totals.cacheShare)}</dd>
        </div>
      </dl>
      {r.unpricedModels.length > 0 ? (
        <p className="notice" role="note">
          Unpriced models (their tokens add no cents): {r.unpricedModels.join(', ')}
        </p>
      ) : null}
      {r.byModel.length === 0 ? (
        <Empty>No usage in this window.</Empty>
      ) : (
        <table aria-label="Savings by model">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              <th scope="col" className="num">Cache share</th>
              <th scope="col" className="num">Input side as billed</th>
              <th scope="col" className="num">Without cache</th>
              <th scope="col" className="num">Saved</th>
            </tr>
          </thead>
          <tbody>
            {r.byModel.map((m) => (
              <tr key={`${m.provider}:${m.model}`}>
                <td>
                  {m.model} {m.priced ? null : <span className="badge badge-due">unpriced</span>}
                  {m.cacheRatesKnown ? null : <span className="muted small"> estimate (cache rate missing)</span>}
                </td>
                <td>{m.provider}</td>
                <td className="num">{percentText(m.cacheShare)}</td>
                <td className="num">{dollars(m.inputCostCents)}</td>
                <td className="num">{dollars(m.noCacheCostCents)}</td>
                <td className="num">{dollars(m.savedCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Pnl({ r }: { r: Schemas['SpendPnlReport'] }) {
  return (
    <>
      {r.rows.length === 0 ? (
        <Empty>No PROJECT unit is linked to a feature.</Empty>
      ) : (
        <table aria-label="Feature P&L">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Feature</th>
              <th scope="col" className="num">Build cost</th>
              <th scope="col" className="num">Outcomes</th>
              <th scope="col" className="num">Build per outcome</th>
              <th scope="col" className="num">Revenue</th>
              <th scope="col" className="num">Serve cost</th>
              <th scope="col" className="num">Serve margin</th>
              <th scope="col" className="num">Net</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.map((row) => (
              <tr key={row.unitId}>
                <td>{row.name}</td>
                <td>
                  <code>{row.featureKey ?? '(deleted)'}</code>
                </td>
                <td className="num">{dollars(row.buildCents)}</td>
                <td className="num">{formatCount(row.outcomes)}</td>
                <td className="num">{perOutcome(row.buildPerOutcomeCents)}</td>
                <td className="num">{dollars(row.revenueCents)}</td>
                <td className="num">{dollars(row.serveCostCents)}</td>
                <td className="num">{dollars(row.serveMarginCents)}</td>
                <td className="num">{dollars(row.netCents)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
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
          </tfoot>
        </table>
      )}
      {r.unlinkedProjects.length > 0 ? <p className="muted">Projects without a feature (left out of the totals): {r.unlinkedProjects.join(', ')}</p> : null}
    </>
  );
}

function Reconcile({ r }: { r: Schemas['SpendReconcileReport'] }) {
  return (
    <>
      <p className="muted">
        {r.from} → {r.to} (inclusive)
      </p>
      {r.rows.length === 0 ? (
        <Empty>Nothing metered, reported or invoiced in this window.</Empty>
      ) : (
        <table aria-label="Reconcile">
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col" className="num">Metered</th>
              <th scope="col" className="num">Vendor reported</th>
              <th scope="col" className="num">Invoiced</th>
              <th scope="col" className="num">Metered − vendor</th>
              <th scope="col" className="num">Vendor − invoice</th>
            </tr>
          </thead>
          <tbody>
            {r.rows.map((row) => (
              <tr key={row.provider}>
                <td>{row.provider}</td>
                <td className="num">
                  {dollars(row.meteredCents)}
                  {row.meteredIsEstimate ? <span className="muted small"> estimate</span> : null}
                </td>
                <td className="num">{dollars(row.vendorReportedCents)}</td>
                <td className="num">
                  {dollars(row.invoicedCents)} <span className="muted small">
                    ({formatCount(row.invoiceCount)} {row.invoiceCount === 1 ? 'invoice' : 'invoices'})
                  </span>
                </td>
                <td className="num">{dollars(row.meteredVsVendorCents)}</td>
                <td className="num">{row.vendorVsInvoiceCents === null ? 'no invoice' : dollars(row.vendorVsInvoiceCents)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
