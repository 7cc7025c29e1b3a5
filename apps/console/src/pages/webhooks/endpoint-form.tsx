import { useState } from 'react';
import { Field, Form } from '../../components/form';
import { SecondaryButton } from '../../components/ui';
import { useCreateWebhookEndpoint, useUpdateWebhookEndpoint, WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from '../../queries/webhooks';

type Draft = { url: string; description: string; eventTypes: string[] };
const draftOf = (e?: WebhookEndpoint): Draft => ({ url: e?.url ?? '', description: e?.description ?? '', eventTypes: e?.eventTypes ?? [] });
/** The request body: a blank description is none; no type chosen is every type (§E2.2). */
const bodyOf = (d: Draft) => ({ url: d.url, description: d.description.trim() === '' ? null : d.description, eventTypes: d.eventTypes });

/**
 * A new endpoint (POST: its secret comes back once, handed to `onCreated`) or an existing one's
 * change (PATCH of url, description and event types). No event type chosen means every type,
 * including types added later.
 */
export function EndpointForm({ endpoint, onCreated, onDone }: { endpoint?: WebhookEndpoint; onCreated?: (e: WebhookEndpoint) => void; onDone?: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(endpoint));
  const create = useCreateWebhookEndpoint((created) => {
    setDraft(draftOf());
    onCreated?.(created);
  });
  const update = useUpdateWebhookEndpoint();
  const mutation = endpoint ? update : create;
  const what = endpoint ? `Endpoint ${endpoint.url}` : 'New webhook endpoint';
  function submit() {
    if (endpoint) update.mutate({ endpointId: endpoint.id, ...bodyOf(draft) }, { onSuccess: () => onDone?.() });
    else create.mutate(bodyOf(draft));
  }
  const cancel = endpoint ? <SecondaryButton onClick={() => onDone?.()}>Cancel</SecondaryButton> : null;
  return (
    <Form label={what} submission={mutation} onSubmit={submit} submit={endpoint ? 'Save endpoint' : 'Add endpoint'} pending="Saving…" failed={endpoint ? 'Endpoint not saved' : 'Endpoint not added'} after={cancel}>
      <Field label="URL" name="url">
        <input name="url" type="url" required value={draft.url} onChange={(e) => setDraft({ ...draft, url: e.target.value })} placeholder="https://example.com/webhooks" />
      </Field>
      <Field label="Description" name="description">
        <input name="description" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} />
      </Field>
      <Field label="Event types (none chosen: all, including types added later)" name="eventTypes">
        <select
          name="eventTypes"
          multiple
          size={6}
          value={draft.eventTypes}
          onChange={(e) => setDraft({ ...draft, eventTypes: [...e.target.selectedOptions].map((o) => o.value) })}
        >
          {WEBHOOK_EVENT_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </Field>
    </Form>
  );
}
