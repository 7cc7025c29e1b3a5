import { ApiError, type Schemas } from '../../api';
import { useCan } from '../../auth';
import { useConfirm } from '../../components/confirm-dialog';
import { ErrorNote } from '../../components/ui';
import { useSetPlanStatus } from '../../queries/catalog';

type Plan = Schemas['Plan'];

const MOVES: Record<Plan['status'], { status: Plan['status']; label: string; consequence: string }> = {
  DRAFT: {
    status: 'ACTIVE',
    label: 'Activate plan',
    consequence: 'Customers can subscribe to it at once; its key, price, interval and billing timing can no longer change.',
  },
  ACTIVE: {
    status: 'ARCHIVED',
    label: 'Archive plan',
    consequence: 'It leaves the catalog: nobody can subscribe to it any more (current subscriptions go on), and it can no longer be edited.',
  },
  ARCHIVED: { status: 'ACTIVE', label: 'Reactivate plan', consequence: 'It is back in the catalog and accepts new subscriptions.' },
};

/** Each activation precondition the API names in `fields[]`: what is missing and where to add it. */
const MISSING: Record<string, string> = {
  name: 'A name: set it in Plan details below',
  description: 'A description: set it in Plan details below',
  intervalMonths: 'An interval of 1 month or more: set it in Plan details below',
  priceAmount: 'A price (0 for a free plan): set it in Plan details below',
  features: 'At least one linked feature: link one under Features and rules',
};

/** Every part the API says is missing before activation, each with where to fix it. */
function MissingParts({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || error.fields.length === 0) return <ErrorNote error={error} title="Not changed" />;
  return (
    <div role="alert" className="error-note" aria-label="Missing before activation">
      <strong>Not activated: the plan is missing {error.fields.length === 1 ? 'one part' : `${error.fields.length} parts`}</strong>
      <ul>
        {error.fields.map((f) => (
          <li key={f.field} data-field={f.field}>
            {MISSING[f.field] ?? f.message}
          </li>
        ))}
      </ul>
      {error.requestId ? <small className="request-id">requestId {error.requestId}</small> : null}
    </div>
  );
}

/** DRAFT → ACTIVE → ARCHIVED (and back to ACTIVE), each move confirmed; a refusal shown where the button is. */
export function StatusActions({ plan }: { plan: Plan }) {
  const move = useSetPlanStatus(plan.id);
  const { ask, dialog } = useConfirm();
  const next = MOVES[plan.status];
  const can = useCan();
  const name = plan.name ?? plan.key;
  const confirm = () => ask({ title: `${next.label.replace(' plan', '')} ${name}?`, body: next.consequence, confirm: next.label, onConfirm: () => move.mutate(next.status) });
  return (
    <div className="row status-actions">
      <button type="button" disabled={move.isPending || !can.allowed} title={can.why} onClick={confirm}>
        {next.label}
      </button>
      {move.error ? <MissingParts error={move.error} /> : null}
      {dialog}
    </div>
  );
}
