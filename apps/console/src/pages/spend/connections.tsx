import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api';
import { Empty, ErrorNote, PageHeader, QueryView, StatusBadge, Time } from '../../ui';

type Connection = Schemas['SpendConnection'];
type Provider = Connection['provider'];
const PROVIDERS: Provider[] = ['ANTHROPIC', 'OPENAI', 'CURSOR', 'COPILOT', 'LITELLM'];

/**
 * Vendor connections: status, last sync and the vendor's message, a sync whose progress bar reads
 * the connection's syncChunksDone/Total (polled while the sync runs), probe and key replacement.
 * The admin key is write-only: only its last four characters are ever shown.
 */
export default function ConnectionsPage() {
  const [syncing, setSyncing] = useState<Set<string>>(new Set());
  const connections = useQuery({
    queryKey: ['spend-connections'],
    queryFn: () => unwrap(api.GET('/api/v1/spend/connections')),
    refetchInterval: syncing.size > 0 ? 250 : false,
  });
  return (
    <section>
      <PageHeader title="Connections" />
      <NewConnectionForm />
      <QueryView query={connections} what="connections">
        {(list) =>
          list.length === 0 ? (
            <Empty>No vendor connected yet.</Empty>
          ) : (
            <div className="stack">
              {list.map((c) => (
                <ConnectionCard
                  key={c.id}
                  connection={c}
                  onSyncing={(on) =>
                    setSyncing((prev) => {
                      const next = new Set(prev);
                      if (on) next.add(c.id);
                      else next.delete(c.id);
                      return next;
                    })
                  }
                />
              ))}
            </div>
          )
        }
      </QueryView>
    </section>
  );
}

function ConnectionCard({ connection: c, onSyncing }: { connection: Connection; onSyncing: (on: boolean) => void }) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['spend-connections'] });
  const [replacing, setReplacing] = useState(false);
  const [key, setKey] = useState('');
  const sync = useMutation({
    mutationFn: () => {
      onSyncing(true);
      return unwrap(api.POST('/api/v1/spend/connections/{id}/sync', { params: { path: { id: c.id } } }));
    },
    onSettled: () => {
      onSyncing(false);
      void refresh();
    },
  });
  const probe = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/spend/connections/{id}/probe', { params: { path: { id: c.id } } })),
    onSettled: () => void refresh(),
  });
  const replace = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/spend/connections/{id}/key', { params: { path: { id: c.id } }, body: { adminKey: key } })),
    onSuccess: () => {
      setKey('');
      setReplacing(false);
    },
    onSettled: () => void refresh(),
  });
  const done = c.syncChunksDone ?? 0;
  const total = c.syncChunksTotal ?? 0;
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
  function submitKey(event: FormEvent) {
    event.preventDefault();
    replace.mutate();
  }
  return (
    <article className="card" aria-label={`Connection ${c.label}`}>
      <div className="row">
        <h2 style={{ margin: 0 }}>{c.label}</h2>
        <StatusBadge status={c.status} />
        <span className="muted">{c.provider}</span>
        <span className="muted">
          key …<code>{c.keyHint}</code>
        </span>
        {c.scope ? <span className="muted">scope {c.scope}</span> : null}
      </div>
      <p className="muted">
        Last sync: <Time iso={c.lastSyncedAt} />
      </p>
      {c.status === 'ERROR' && c.lastError ? (
        <p role="alert" className="error-note">
          Vendor said: {c.lastError}
        </p>
      ) : null}
      {total > 0 ? (
        <div className="row">
          <progress className="progress" aria-label={`Sync progress of ${c.label}`} value={done} max={total} />
          <span data-testid="sync-percent">
            {percent} % ({done} of {total} chunks)
          </span>
        </div>
      ) : null}
      <div className="row" style={{ marginTop: '0.5rem' }}>
        <button type="button" disabled={sync.isPending} onClick={() => sync.mutate()}>
          {sync.isPending ? 'Syncing…' : 'Sync now'}
        </button>
        <button type="button" className="secondary" disabled={probe.isPending} onClick={() => probe.mutate()}>
          Probe
        </button>
        <button type="button" className="secondary" onClick={() => setReplacing(!replacing)}>
          Replace key
        </button>
      </div>
      {sync.data ? (
        <p role="status">
          Synced {sync.data.from} → {sync.data.to}: {sync.data.rowsWritten} rows written.
        </p>
      ) : null}
      {probe.data ? <p role="status">{probe.data.ok ? 'Probe passed: the key works.' : `Probe failed: ${probe.data.message ?? 'no message'}`}</p> : null}
      <ErrorNote error={sync.error} title="Sync failed" />
      <ErrorNote error={probe.error} title="Probe failed" />
      {replacing ? (
        <form className="inline-form" onSubmit={submitKey} aria-label={`Replace key of ${c.label}`}>
          <label>
            New admin key
            <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
          </label>
          <button type="submit" disabled={replace.isPending}>
            Save key
          </button>
          <ErrorNote error={replace.error} title="Key not replaced" />
        </form>
      ) : null}
    </article>
  );
}

function NewConnectionForm() {
  const queryClient = useQueryClient();
  const [provider, setProvider] = useState<Provider>('ANTHROPIC');
  const [label, setLabel] = useState('');
  const [adminKey, setAdminKey] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/spend/connections', { body: { provider, label, adminKey } })),
    onSuccess: () => {
      setLabel('');
      setAdminKey('');
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ['spend-connections'] }),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="New connection">
      <label>
        Provider
        <select value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
          {PROVIDERS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </label>
      <label>
        Label
        <input required value={label} onChange={(e) => setLabel(e.target.value)} />
      </label>
      <label>
        Admin key
        <input type="password" autoComplete="off" required value={adminKey} onChange={(e) => setAdminKey(e.target.value)} />
      </label>
      <button type="submit" disabled={create.isPending}>
        Connect
      </button>
      <ErrorNote error={create.error} title="Not connected" />
    </form>
  );
}
