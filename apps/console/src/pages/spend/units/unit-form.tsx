import { useState } from 'react';
import type { Schemas } from '../../../api';
import { Choice, Field, Form } from '../../../components/form';
import { FeaturePicker, SpendUnitPicker } from '../../../components/pickers';
import { UNIT_TYPES, useCreateUnit, useUpdateUnit, type UnitInput, type UnitType } from '../../../queries/spend';

type Unit = Schemas['SpendUnit'];
type Draft = { type: UnitType; name: string; parentId: string; email: string; githubLogin: string; featureId: string };

const draftOf = (u?: Unit): Draft => ({
  type: u?.type ?? 'TEAM',
  name: u?.name ?? '',
  parentId: u?.parentId ?? '',
  email: u?.email ?? '',
  githubLogin: u?.githubLogin ?? '',
  featureId: u?.featureId ?? '',
});

/** The unit as the API takes it: a PERSON's e-mail and GitHub login, a PROJECT's feature, nothing else (a PUT replaces every field). */
function inputOf(d: Draft): UnitInput {
  const orNull = (v: string) => (v.trim() ? v.trim() : null);
  return {
    type: d.type,
    name: d.name,
    parentId: orNull(d.parentId),
    ...(d.type === 'PERSON' ? { email: orNull(d.email), githubLogin: orNull(d.githubLogin) } : {}),
    ...(d.type === 'PROJECT' ? { featureId: orNull(d.featureId) } : {}),
  };
}

/** A new unit, or (with `unit`) the edit of one: type, name, parent, and the fields of its type. */
export function UnitForm({ unit, onDone }: { unit?: Unit; onDone?: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(unit));
  const done = () => (unit ? onDone?.() : setDraft({ ...draftOf(), type: draft.type }));
  const create = useCreateUnit(done);
  const update = useUpdateUnit(unit?.id ?? '', done);
  const save = unit ? update : create;
  const set = (field: keyof Draft) => (value: string) => setDraft({ ...draft, [field]: value });
  const text = (field: keyof Draft) => (e: { target: { value: string } }) => set(field)(e.target.value);
  return (
    <Form label={unit ? `Edit ${unit.name}` : 'New spend unit'} submission={save} onSubmit={() => save.mutate(inputOf(draft))} submit={unit ? 'Save unit' : 'Create unit'} failed={unit ? 'Unit not saved' : 'Unit not created'}>
      <Field label="Type" name="type">
        <Choice value={draft.type} options={UNIT_TYPES} onChange={(type) => setDraft({ ...draft, type })} />
      </Field>
      <Field label="Name" name="name">
        <input required maxLength={120} value={draft.name} onChange={text('name')} />
      </Field>
      <Field label="Parent" name="parentId">
        <SpendUnitPicker placeholder="None (top level)" exclude={unit ? [unit.id] : []} value={draft.parentId} onChange={set('parentId')} />
      </Field>
      {draft.type === 'PERSON' ? (
        <>
          <Field label="E-mail" name="email">
            <input type="email" value={draft.email} onChange={text('email')} />
          </Field>
          <Field label="GitHub login" name="githubLogin">
            <input value={draft.githubLogin} onChange={text('githubLogin')} />
          </Field>
        </>
      ) : null}
      {draft.type === 'PROJECT' ? (
        <Field label="Feature (for the P&L)" name="featureId">
          <FeaturePicker placeholder="None" value={draft.featureId} onChange={set('featureId')} />
        </Field>
      ) : null}
    </Form>
  );
}
