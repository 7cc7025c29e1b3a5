/**
 * Creating a customer (the customers list) and editing one (the customer page), through the Client
 * API an integrator's backend uses. The API names a refused field in `fields[]`; each shows under
 * its input.
 */
import { useState } from 'react';
import type { Schemas } from '../../api';
import { Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { PageHeader, SecondaryButton } from '../../components/ui';
import { useCreateCustomer, useUpdateCustomer } from '../../queries/customers';

type Details = { email: string; firstName: string; lastName: string; phoneNumber: string };

const detailsOf = (c?: Schemas['AdminCustomer']): Details => ({
  email: c?.email ?? '',
  firstName: c?.firstName ?? '',
  lastName: c?.lastName ?? '',
  phoneNumber: c?.phoneNumber ?? '',
});

/** The fields sent: an empty optional one is left out (on create) or cleared (on edit: null). */
function toBody(d: Details, empty: undefined | null) {
  const or = (v: string) => (v.trim() === '' ? empty : v.trim());
  return { email: d.email.trim(), firstName: or(d.firstName), lastName: or(d.lastName), phoneNumber: or(d.phoneNumber) };
}

function DetailFields({ value, onChange }: { value: Details; onChange: (next: Details) => void }) {
  const input = (key: keyof Details, type = 'text') => (
    <input type={type} name={key} value={value[key]} required={key === 'email'} onChange={(e) => onChange({ ...value, [key]: e.target.value })} />
  );
  return (
    <>
      <Field label="E-mail" name="email">
        {input('email', 'email')}
      </Field>
      <Field label="First name" name="firstName">
        {input('firstName')}
      </Field>
      <Field label="Last name" name="lastName">
        {input('lastName')}
      </Field>
      <Field label="Phone" name="phoneNumber">
        {input('phoneNumber', 'tel')}
      </Field>
    </>
  );
}

/** A new customer: its reference (your id for it, unique per account) and its details. */
export function NewCustomerForm({ onCreated }: { onCreated: (ref: string) => void }) {
  const [ref, setRef] = useState('');
  const [details, setDetails] = useState(detailsOf());
  const create = useCreateCustomer((c) => {
    setRef('');
    setDetails(detailsOf());
    onCreated(c.customerReferenceId);
  });
  return (
    <Form
      label="New customer"
      submission={create}
      onSubmit={() => create.mutate({ customerReferenceId: ref.trim(), ...toBody(details, undefined) })}
      submit="Create customer"
      pending="Creating…"
      failed="Customer not created"
    >
      <Field label="Reference" name="customerReferenceId">
        <input name="customerReferenceId" value={ref} required maxLength={255} onChange={(e) => setRef(e.target.value)} />
      </Field>
      <DetailFields value={details} onChange={setDetails} />
    </Form>
  );
}

/** The customer's details (its reference does not change); `onDone` closes the form once saved. */
export function EditCustomerForm({ customer, onDone }: { customer: Schemas['AdminCustomer']; onDone: () => void }) {
  const [details, setDetails] = useState(detailsOf(customer));
  const update = useUpdateCustomer(customer.customerReferenceId, onDone);
  return (
    <Form
      label="Edit customer"
      submission={update}
      onSubmit={() => update.mutate(toBody(details, null))}
      submit="Save customer"
      pending="Saving…"
      failed="Customer not saved"
      after={<SecondaryButton onClick={onDone}>Cancel</SecondaryButton>}
    >
      <DetailFields value={details} onChange={setDetails} />
    </Form>
  );
}

/** The customer page's header: reference, name, e-mail and phone, and an Edit button opening the form. */
export function CustomerHeader({ customer: c }: { customer: Schemas['AdminCustomer'] }) {
  const [editing, setEditing] = useState(false);
  return (
    <>
      <PageHeader title={c.customerReferenceId}>
        {editing ? null : <SecondaryButton onClick={() => setEditing(true)}>Edit customer</SecondaryButton>}
      </PageHeader>
      {editing ? (
        <EditCustomerForm customer={c} onDone={() => setEditing(false)} />
      ) : (
        <p className="muted" data-testid="customer-details">
          {[c.firstName, c.lastName].filter(Boolean).join(' ') || 'No name'} · {c.email ?? 'no e-mail'}
          {c.phoneNumber ? ` · ${c.phoneNumber}` : ''} · created <Time iso={c.createdAt} />
        </p>
      )}
    </>
  );
}
