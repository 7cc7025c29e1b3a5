import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api';
import { Empty, ErrorNote, PageHeader, QueryView, Time } from '../../ui';
import { dollars } from './common';

/** Budget alerts, unacknowledged first by default; acknowledging one moves it out of that view. */
export default function AlertsPage() {
  const queryClient = useQueryClient();
  const [unackedOnly, setUnackedOnly] = useState(true);
  const alerts = useQuery({
    queryKey: ['spend-alerts', unackedOnly],
    queryFn: () => unwrap(api.GET('/api/v1/spend/alerts', { params: { query: { unackedOnly } } })),
  });
  const ack = useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/api/v1/spend/alerts/{id}/ack', { params: { path: { id } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['spend-alerts'] }),
  });
  return (
    <section>
      <PageHeader title="Alerts">
        <label className="row" style={{ flexDirection: 'row' }}>
          <input type="checkbox" checked={unackedOnly} onChange={(e) => setUnackedOnly(e.target.checked)} /> Unacknowledged only
        </label>
      </PageHeader>
      <ErrorNote error={ack.error} title="Not acknowledged" />
      <QueryView query={alerts} what="alerts">
        {(list) =>
          list.length === 0 ? (
            <Empty>{unackedOnly ? 'No unacknowledged alert.' : 'No alert yet.'}</Empty>
          ) : (
            <table aria-label="Alerts">
              <thead>
                <tr>
                  <th>Fired</th>
                  <th>Unit</th>
                  <th>Kind</th>
                  <th>Period</th>
                  <th className="num">Spent</th>
                  <th className="num">Limit</th>
                  <th>Message</th>
                  <th>Acknowledged</th>
                </tr>
              </thead>
              <tbody>
                {list.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Time iso={a.firedAt} />
                    </td>
                    <td>{a.unitName}</td>
                    <td>{a.kind}</td>
                    <td>{a.period}</td>
                    <td className="num">{dollars(a.spentCents)}</td>
                    <td className="num">{dollars(a.limitCents)}</td>
                    <td>{a.message}</td>
                    <td>
                      {a.ackedAt ? (
                        <span>
                          <Time iso={a.ackedAt} /> {a.ackedBy ? `by ${a.ackedBy}` : ''}
                        </span>
                      ) : (
                        <button type="button" className="secondary" disabled={ack.isPending} onClick={() => ack.mutate(a.id)} aria-label={`Acknowledge ${a.kind} alert of ${a.unitName}`}>
                          Acknowledge
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}
