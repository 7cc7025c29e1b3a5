/** What the weight tariff and the price book share: a scheduled row's delete button, the publish warnings, the effective-from field. */
import type { Schemas } from '../../api';
import type { Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Field } from '../../components/form';
import { StatusBadge } from '../../components/ui';

type Warning = Schemas['CreditTariffWarning'];
type Scheduled = { id: string; effectiveFrom: string; status: string };

/** datetime-local text (the user's zone) as an ISO instant. */
export const isoOf = (local: string) => new Date(local).toISOString();

/** The columns every tariff row ends with: when it takes effect, its status, and delete while it is only scheduled. */
export function scheduleColumns<T extends Scheduled>(deleteLabel: (row: T) => string, onDelete: (id: string) => void): Column<T>[] {
  return [
    { header: 'Effective from', cell: (r) => <Time iso={r.effectiveFrom} /> },
    { header: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
    {
      header: 'Actions',
      hiddenHeader: true,
      cell: (r) =>
        r.status === 'SCHEDULED' ? (
          <button type="button" className="danger" aria-label={deleteLabel(r)} onClick={() => onDelete(r.id)}>
            Delete
          </button>
        ) : null,
    },
  ];
}

export function EffectiveFrom({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Field label="Effective from">
      <input required type="datetime-local" value={value} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}

export function Warnings({ warnings }: { warnings: Warning[] | undefined }) {
  if (!warnings?.length) return null;
  return (
    <div className="notice" role="note">
      <ul>
        {warnings.map((w, i) => (
          <li key={i}>{(w as { message?: string }).message ?? JSON.stringify(w)}</li>
        ))}
      </ul>
    </div>
  );
}
