import { useState } from 'react';
import type { Schemas } from '../../api';
import { Check, Field, Form } from '../../components/form';
import { PageHeader, QueryView } from '../../components/ui';
import { useSaveSpendSettings, useSpendSettings } from '../../queries/spend';

type Settings = Schemas['SpendSettings'];
const NO_SECRETS = { slackWebhookUrl: '', webhookUrl: '', webhookSecret: '' };
type Secret = keyof typeof NO_SECRETS;

/**
 * Spend settings. Secrets (Slack webhook, generic webhook URL and its signing secret) are
 * write-only: the page shows "set" or "not set" and a field to replace them, never their value.
 */
export default function SpendSettingsPage() {
  const settings = useSpendSettings();
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
  const [form, setForm] = useState({ alertEmails: s.alertEmails ?? '', workerNotice: s.workerNotice ?? '', digestEnabled: s.digestEnabled, personLevelEnabled: s.personLevelEnabled });
  const [secrets, setSecrets] = useState(NO_SECRETS);
  const save = useSaveSpendSettings(() => setSecrets(NO_SECRETS));
  function submit() {
    // A secret is sent only when a replacement was typed; an empty field leaves it as it is.
    const typed = Object.fromEntries(Object.entries(secrets).filter(([, v]) => v));
    save.mutate({ ...form, alertEmails: form.alertEmails || null, workerNotice: form.workerNotice || null, ...typed });
  }
  const secret = (name: Secret, label: string, isSet: boolean) => (
    <Field
      label={
        <span>
          {label}: <strong data-testid={`${name}-state`}>{isSet ? 'set' : 'not set'}</strong>
        </span>
      }
    >
      <input
        type="password"
        autoComplete="off"
        placeholder={isSet ? 'Replace…' : 'Set…'}
        aria-label={`Replace ${label}`}
        value={secrets[name]}
        onChange={(e) => setSecrets({ ...secrets, [name]: e.target.value })}
      />
    </Field>
  );
  return (
    <Form label="Spend settings" layout="grid" submission={save} onSubmit={submit} submit="Save settings" failed="Settings not saved" saved>
      <Field label="Alert emails (comma-separated)">
        <input value={form.alertEmails} onChange={(e) => setForm({ ...form, alertEmails: e.target.value })} />
      </Field>
      <Field label="Worker notice">
        <textarea value={form.workerNotice} onChange={(e) => setForm({ ...form, workerNotice: e.target.value })} />
      </Field>
      <Check label="Weekly digest" checked={form.digestEnabled} onChange={(digestEnabled) => setForm({ ...form, digestEnabled })} />
      <Check label="Person-level attribution" checked={form.personLevelEnabled} onChange={(personLevelEnabled) => setForm({ ...form, personLevelEnabled })} />
      {secret('slackWebhookUrl', 'Slack webhook', s.slackConfigured)}
      {secret('webhookUrl', 'Webhook URL', s.webhookConfigured)}
      {secret('webhookSecret', 'Webhook signing secret', s.webhookSigned)}
    </Form>
  );
}
