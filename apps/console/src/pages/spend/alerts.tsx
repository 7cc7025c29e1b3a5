import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { Time } from '../../components/figures';
import { Check } from '../../components/form';
import { ErrorNote, PageHeader } from '../../components/ui';
import { useAckAlert, useSpendAlerts } from '../../queries/spend';
import { dollars } from './common';

type Alert = Schemas['SpendAlert'];

function alertColumns(ack: ReturnType<typeof useAckAlert>): Column<Alert>[] {
  return [
    { header: 'Fired', cell: (a) => <Time iso={a.firedAt} /> },
    { header: 'Unit', cell: (a) => a.unitName },
    { header: 'Kind', cell: (a) => a.kind },
    { header: 'Period', cell: (a) => a.period },
    { header: 'Spent', num: true, cell: (a) => dollars(a.spentCents) },
    { header: 'Limit', num: true, cell: (a) => dollars(a.limitCents) },
    { header: 'Message', cell: (a) => a.message },
    {
      header: 'Acknowledged',
      cell: (a) =>
        a.ackedAt ? (
          <span>
            <Time iso={a.ackedAt} /> {a.ackedBy ? `by ${a.ackedBy}` : ''}
          </span>
        ) : (
          <button type="button" className="secondary" disabled={ack.isPending} onClick={() => ack.mutate(a.id)} aria-label={`Acknowledge ${a.kind} alert of ${a.unitName}`}>
            Acknowledge
          </button>
        ),
    },
  ];
}

/** Budget alerts, unacknowledged first by default; acknowledging one moves it out of that view. */
export default function AlertsPage() {
  const [unackedOnly, setUnackedOnly] = useState(true);
  const alerts = useSpendAlerts(unackedOnly);
  const ack = useAckAlert();
  return (
    <section>
      <PageHeader title="Alerts">
        <Check label="Unacknowledged only" checked={unackedOnly} onChange={setUnackedOnly} />
      </PageHeader>
      <ErrorNote error={ack.error} title="Not acknowledged" />
      <DataTable
        label="Alerts"
        query={alerts}
        columns={alertColumns(ack)}
        rows={alerts.data}
        rowKey={(a) => a.id}
        empty={unackedOnly ? 'No unacknowledged alert.' : 'No alert yet.'}
      />
    </section>
  );
}
