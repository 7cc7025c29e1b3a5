import { useState } from 'react';
import { Link } from 'react-router';
import { Field, Form } from '../../components/form';
import { StatusNote } from '../../components/ui';
import { useResendEvent } from '../../queries/webhooks';
import { paths } from '../../routes';
import { EndpointPicker } from './common';

/** Sends one event to an endpoint again (a new delivery, the same bytes), whatever the endpoint's event types. */
export function ResendForm({ eventId, endpointId = '' }: { eventId: string; endpointId?: string }) {
  const [target, setTarget] = useState(endpointId);
  const resend = useResendEvent();
  return (
    <Form
      access="admin"
      label={`Resend event ${eventId}`}
      submission={resend}
      onSubmit={() => resend.mutate({ endpointId: target, eventId })}
      submit="Resend"
      pending="Resending…"
      failed="Not resent"
      after={
        resend.data ? (
          <StatusNote className="small">
            Resent: <Link to={paths.webhookDelivery(resend.data.id)}>new delivery {resend.data.status}</Link>
          </StatusNote>
        ) : null
      }
    >
      <Field label="Resend to endpoint">
        <EndpointPicker value={target} onChange={setTarget} none="Choose an endpoint…" name="endpointId" required />
      </Field>
    </Form>
  );
}
