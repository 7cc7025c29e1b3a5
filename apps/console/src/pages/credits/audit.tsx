import { ErrorNote } from '../../components/ui';
import { useLedgerAudit } from '../../queries/credits';

/** The ledger audit, run on demand: pools checked and each discrepancy found. */
export function Audit() {
  const audit = useLedgerAudit();
  const result = audit.data;
  return (
    <>
      <h2>Ledger audit</h2>
      <p className="muted">Recomputes every pool's balance from its ledger and compares it with the stored balance.</p>
      <button type="button" disabled={audit.isPending} onClick={() => audit.mutate()}>
        {audit.isPending ? 'Auditing…' : 'Run ledger audit'}
      </button>
      <ErrorNote error={audit.error} title="Audit failed" />
      {result ? (
        <div role="status" data-testid="audit-result" className={result.discrepancies.length ? 'error-note' : 'notice'}>
          {result.poolsChecked} pools checked:{' '}
          {result.discrepancies.length === 0 ? (
            'no discrepancy.'
          ) : (
            <ul>
              {result.discrepancies.map((d) => (
                <li key={d.poolId + d.problem}>
                  <code>{d.poolId}</code>: {d.problem}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </>
  );
}
