/**
 * Credit forms the credits page and the customer page share: a new pool (for a customer or the
 * account) and a grant or deduction on a pool. A grant or deduction moves credits, so it asks
 * first, naming the exact amount as typed (decimal text, never through a float), the pool and what
 * happens to its balance.
 */
import { useState } from 'react';
import type { Schemas } from '../api';
import { useCreatePool, useDeductCredits, useGrantCredits, GRANT_TYPES, type GrantType } from '../queries/credits';
import { useConfirm } from './confirm-dialog';
import { Credits } from './figures';
import { Check, Choice, Field, Form } from './form';
import { CreditModelPicker, CustomerPicker } from './pickers';

type Pool = Schemas['CreditPool'];

const BLANK_POOL = { name: '', denomination: '', customerId: '', hardLimit: false };

/** A new pool; with `customerId` it is that customer's, otherwise the form asks (or none: account-level). */
export function NewPoolForm({ customerId }: { customerId?: string }) {
  const [form, setForm] = useState({ ...BLANK_POOL, customerId: customerId ?? '' });
  const create = useCreatePool(() => setForm({ ...BLANK_POOL, customerId: customerId ?? '' }));
  const submit = () => create.mutate({ name: form.name, denomination: form.denomination, hardLimit: form.hardLimit, ...(form.customerId ? { customerId: form.customerId } : {}) });
  return (
    <Form label="New credit pool" submission={create} onSubmit={submit} submit="Create pool" failed="Pool not created">
      <Field label="Pool name" name="name">
        <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      </Field>
      <Field label="Credit model" name="denomination">
        <CreditModelPicker required by="denomination" value={form.denomination} onChange={(denomination) => setForm({ ...form, denomination })} />
      </Field>
      {customerId === undefined ? (
        <Field label="Customer" name="customerId">
          <CustomerPicker placeholder="Account-level (no customer)" value={form.customerId} onChange={(id) => setForm({ ...form, customerId: id })} />
        </Field>
      ) : null}
      <Check label="Hard limit" checked={form.hardLimit} onChange={(hardLimit) => setForm({ ...form, hardLimit })} />
    </Form>
  );
}

type Movement = { kind: 'grant' | 'deduct'; amount: string; grantType: GrantType; expiresAt: string; description: string };
const BLANK_MOVEMENT: Movement = { kind: 'grant', amount: '', grantType: 'MANUAL', expiresAt: '', description: '' };

/** Grant credits to a pool or deduct from it, each confirmed with the exact amount. */
export function CreditMovementForm({ pool }: { pool: Pool }) {
  const [form, setForm] = useState(BLANK_MOVEMENT);
  const reset = () => setForm({ ...BLANK_MOVEMENT, kind: form.kind });
  const grant = useGrantCredits(reset);
  const deduct = useDeductCredits(reset);
  const { ask, dialog } = useConfirm();
  const granting = form.kind === 'grant';
  const amount = form.amount.trim();
  const description = form.description.trim() ? { description: form.description.trim() } : {};
  function submit() {
    const idempotencyKey = crypto.randomUUID();
    const figure = (
      <>
        <Credits amount={amount} /> {pool.denomination}
      </>
    );
    const expiry = form.expiresAt ? new Date(`${form.expiresAt}Z`).toISOString() : undefined;
    if (granting) {
      ask({
        title: `Grant ${amount} ${pool.denomination} to ${pool.name}?`,
        body: <>The balance of {pool.name} rises by exactly {figure} (a {form.grantType} grant, {expiry ? `expiring ${form.expiresAt.replace('T', ' ')} UTC` : 'never expiring'}).</>,
        confirm: 'Grant credits',
        onConfirm: () => grant.mutate({ creditPoolId: pool.id, amount, grantType: form.grantType, idempotencyKey, ...(expiry ? { expiresAt: expiry } : {}), ...description }),
      });
    } else {
      ask({
        title: `Deduct ${amount} ${pool.denomination} from ${pool.name}?`,
        body: <>The balance of {pool.name} falls by exactly {figure}, drawn from its oldest grants first.</>,
        confirm: 'Deduct credits',
        onConfirm: () => deduct.mutate({ creditPoolId: pool.id, amount, idempotencyKey, ...description }),
      });
    }
  }
  const set = (field: keyof Movement) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  return (
    <>
      <Form label={`Grant or deduct on ${pool.name}`} submission={granting ? grant : deduct} onSubmit={submit} submit={granting ? 'Grant…' : 'Deduct…'} failed={granting ? 'Credits not granted' : 'Credits not deducted'}>
        <Field label="Action">
          <select value={form.kind} onChange={set('kind')}>
            <option value="grant">Grant</option>
            <option value="deduct">Deduct</option>
          </select>
        </Field>
        <Field label={`Credits (${pool.denomination})`} name="amount">
          <input required inputMode="decimal" pattern="\d+(\.\d{1,6})?" title="Credits, up to 6 decimals" value={form.amount} onChange={set('amount')} />
        </Field>
        {granting ? (
          <>
            <Field label="Grant type" name="grantType">
              <Choice value={form.grantType} options={GRANT_TYPES} onChange={(grantType) => setForm({ ...form, grantType })} />
            </Field>
            <Field label="Expires (UTC, empty: never)" name="expiresAt">
              <input type="datetime-local" value={form.expiresAt} onChange={set('expiresAt')} />
            </Field>
          </>
        ) : null}
        <Field label="Description" name="description">
          <input value={form.description} onChange={set('description')} />
        </Field>
      </Form>
      {dialog}
    </>
  );
}
