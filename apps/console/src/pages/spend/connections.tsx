import { useState } from 'react';
import type { Schemas } from '../../api';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { EmptyState, ErrorNote, PageHeader, QueryView, StatusBadge, StatusNote } from '../../components/ui';
import { useConnectionActions, useCreateConnection, useSpendConnections } from '../../queries/spend';

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
  const connections = useSpendConnections(syncing.size > 0);
  return (
    <section>
      <PageHeader title="Connections" />
      <NewConnectionForm />
      <QueryView query={connections} what="connections">
        {(list) =>
          list.length === 0 ? (
            <EmptyState>No vendor connected yet: connect the first one above.</EmptyState>
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
  const [replacing, setReplacing] = useState(false);
  const { sync, probe, replaceKey } = useConnectionActions(c.id, { onSyncing, onKeyReplaced: () => setReplacing(false) });
  const done = c.syncChunksDone ?? 0;
  const total = c.syncChunksTotal ?? 0;
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
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
        <StatusNote>
          Synced {sync.data.from} → {sync.data.to}: {sync.data.rowsWritten} rows written.
        </StatusNote>
      ) : null}
      {probe.data ? <StatusNote>{probe.data.ok ? 'Probe passed: the key works.' : `Probe failed: ${probe.data.message ?? 'no message'}`}</StatusNote> : null}
      <ErrorNote error={sync.error} title="Sync failed" />
      <ErrorNote error={probe.error} title="Probe failed" />
      {replacing ? <ReplaceKeyForm label={c.label} replaceKey={replaceKey} /> : null}
    </article>
  );
}

function ReplaceKeyForm({ label, replaceKey }: { label: string; replaceKey: ReturnType<typeof useConnectionActions>['replaceKey'] }) {
  const [key, setKey] = useState('');
  return (
    <Form label={`Replace key of ${label}`} submission={replaceKey} onSubmit={() => replaceKey.mutate(key, { onSuccess: () => setKey('') })} submit="Save key" failed="Key not replaced">
      <Field label="New admin key">
        <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
      </Field>
    </Form>
  );
}

const BLANK = { label: '', adminKey: '' };

function NewConnectionForm() {
  const [provider, setProvider] = useState<Provider>('ANTHROPIC');
  const [form, setForm] = useState(BLANK);
  const create = useCreateConnection(() => setForm(BLANK));
  return (
    <Form label="New connection" submission={create} onSubmit={() => create.mutate({ provider, ...form })} submit="Connect" failed="Not connected">
      <Field label="Provider">
        <select value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
          {PROVIDERS.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
      </Field>
      <Field label="Label">
        <input required value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} />
      </Field>
      <Field label="Admin key">
        <input type="password" autoComplete="off" required value={form.adminKey} onChange={(e) => setForm({ ...form, adminKey: e.target.value })} />
      </Field>
    </Form>
  );
}
