import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { operations } from '@tally/client';
import { api, unwrap, type Schemas } from '../../api';
import { ErrorNote, PageHeader, QueryView } from '../../ui';

type Settings = Schemas['SpendSettings'];
type Update = operations['updateSpendSettings']['requestBody']['content']['application/json'];

/**
 * Spend settings. Secrets (Slack webhook, generic webhook URL and its signing secret) are
 * write-only: the page shows "set" or "not set" and a field to replace them, never their value.
 */
export default function SpendSettingsPage() {
  const settings = useQuery({ queryKey: ['spend-settings'], queryFn: () => unwrap(api.GET('/api/v1/spend/settings')) });
  return (
    <section>
      <PageHeader title="Spend settings" />
      <QueryView query={settings} what="spend settings">
        {(s) => <SettingsForm s={s} />}
      </QueryView>
    </section>
  );
}

function SettingsForm({ s }: { s: Settings }) {
  const queryClient = useQueryClient();
  const [alertEmails, setAlertEmails] = useState(s.alertEmails ?? '');
  const [workerNotice, setWorkerNotice] = useState(s.workerNotice ?? '');
  const [digestEnabled, setDigestEnabled] = useState(s.digestEnabled);
  const [personLevelEnabled, setPersonLevelEnabled] = useState(s.personLevelEnabled);
  const [secrets, setSecrets] = useState({ slackWebhookUrl: '', webhookUrl: '', webhookSecret: '' });
  const save = useMutation({
    mutationFn: () => {
      const body: Update = { alertEmails: alertEmails || null, workerNotice: workerNotice || null, digestEnabled, personLevelEnabled };
      // A secret is sent only when a replacement was typed; an empty field leaves it as it is.
      for (const [k, v] of Object.entries(secrets)) if (v) (body as Record<string, unknown>)[k] = v;
      return unwrap(api.PUT('/api/v1/spend/settings', { body }));
    },
    onSuccess: (next) => {
      setSecrets({ slackWebhookUrl: '', webhookUrl: '', webhookSecret: '' });
      queryClient.setQueryData(['spend-settings'], next);
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  const secret = (name: keyof typeof secrets, label: string, isSet: boolean) => (
    <label>
      <span>
        {label}: <strong data-testid={`${name}-state`}>{isSet ? 'set' : 'not set'}</strong>
      </span>
      <input
        type="password"
        autoComplete="off"
        placeholder={isSet ? 'Replace…' : 'Set…'}
        aria-label={`Replace ${label}`}
        value={secrets[name]}
        onChange={(e) => setSecrets({ ...secrets, [name]: e.target.value })}
      />
    </label>
  );
  return (
    <form className="form-grid card" onSubmit={submit} aria-label="Spend settings">
      <label>
        Alert emails (comma-separated)
        <input value={alertEmails} onChange={(e) => setAlertEmails(e.target.value)} />
      </label>
      <label>
        Worker notice
        <textarea value={workerNotice} onChange={(e) => setWorkerNotice(e.target.value)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={digestEnabled} onChange={(e) => setDigestEnabled(e.target.checked)} /> Weekly digest
      </label>
      <label className="check">
        <input type="checkbox" checked={personLevelEnabled} onChange={(e) => setPersonLevelEnabled(e.target.checked)} /> Person-level attribution
      </label>
      {secret('slackWebhookUrl', 'Slack webhook', s.slackConfigured)}
      {secret('webhookUrl', 'Webhook URL', s.webhookConfigured)}
      {secret('webhookSecret', 'Webhook signing secret', s.webhookSigned)}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
        {save.isSuccess ? <span role="status">Saved.</span> : null}
      </div>
      <ErrorNote error={save.error} title="Settings not saved" />
    </form>
  );
}
