import { useState } from 'react';
import { useConfirm } from '../components/confirm-dialog';
import { DataTable, type Column } from '../components/data-table';
import { Time } from '../components/figures';
import { Check, Field, Form } from '../components/form';
import { ErrorNote, PageHeader, StatusBadge } from '../components/ui';
import { useCreateFeature, useDeleteFeature, useFeatures, useUpdateFeature } from '../queries/catalog';
import type { Schemas } from '../api';

type Feature = Schemas['Feature'];

const COLUMNS: Column<Feature>[] = [
  {
    header: 'Name',
    cell: (f) => (
      <>
        {f.name}
        {f.description ? <div className="muted small">{f.description}</div> : null}
      </>
    ),
  },
  { header: 'Key', cell: (f) => <code>{f.key}</code> },
  { header: 'Type', cell: (f) => f.featureType },
  { header: 'Status', cell: (f) => <StatusBadge status={f.isEnabled ? 'ENABLED' : 'DISABLED'} /> },
  { header: 'Created', cell: (f) => <Time iso={f.createdAt} /> },
];

/** Features: create one, edit one in place, delete one no plan or event uses (confirmed; the API refuses the rest). */
export default function FeaturesPage() {
  const features = useFeatures();
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useDeleteFeature();
  const { ask, dialog } = useConfirm();
  const actions: Column<Feature> = {
    header: 'Actions',
    hiddenHeader: true,
    cell: (f) => (
      <div className="row">
        <button type="button" className="secondary" aria-label={`Edit ${f.name}`} onClick={() => setEditing(editing === f.id ? null : f.id)}>
          Edit
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Delete ${f.name}`}
          onClick={() => ask({ title: `Delete ${f.name}?`, body: `The feature ${f.key} is removed from the catalog. A feature linked to a plan or with usage events cannot be deleted.`, confirm: 'Delete feature', onConfirm: () => remove.mutate(f.id) })}
        >
          Delete
        </button>
      </div>
    ),
  };
  const focusNew = () => document.querySelector<HTMLInputElement>('form[aria-label="New feature"] input')?.focus();
  return (
    <section>
      <PageHeader title="Features" />
      <FeatureForm />
      <ErrorNote error={remove.error} title="Feature not deleted" />
      <DataTable
        label="Features"
        query={features}
        columns={[...COLUMNS, actions]}
        rows={features.data}
        rowKey={(f) => f.id}
        detail={(f) => (editing === f.id ? <FeatureForm feature={f} onDone={() => setEditing(null)} /> : null)}
        empty="No features yet: a feature is what a plan sells and what usage events count. Create the first one with the form above."
        next={{ label: 'Start with a name', onClick: focusNew }}
      />
      {dialog}
    </section>
  );
}

const BLANK = { name: '', key: '', description: '', isEnabled: true };

/** A new feature, or (with `feature`) the fields of one to change: only those that changed are sent. */
function FeatureForm({ feature, onDone }: { feature?: Feature; onDone?: () => void }) {
  const before = feature ? { name: feature.name, key: feature.key, description: feature.description ?? '', isEnabled: feature.isEnabled } : BLANK;
  const [form, setForm] = useState(before);
  const create = useCreateFeature(() => setForm(BLANK));
  const update = useUpdateFeature(feature?.id ?? '', () => onDone?.());
  const texts = (['name', 'key', 'description'] as const).filter((k) => form[k].trim() !== before[k] || !feature);
  const body = { ...Object.fromEntries(texts.map((k) => [k, form[k].trim() || (k === 'description' ? null : '')])), ...(form.isEnabled !== before.isEnabled ? { isEnabled: form.isEnabled } : {}) };
  const submission = feature ? update : create;
  const input = (name: 'name' | 'key' | 'description', required = false) => (
    <input name={name} required={required} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
  );
  return (
    <Form
      label={feature ? `Edit ${feature.name}` : 'New feature'}
      submission={submission}
      onSubmit={() => (feature ? update.mutate(body) : create.mutate({ name: form.name, key: form.key, ...(form.description ? { description: form.description } : {}) }))}
      submit={feature ? 'Save feature' : 'Create feature'}
      failed={feature ? 'Feature not saved' : 'Feature not created'}
      after={onDone ? <button type="button" className="secondary" onClick={onDone}>Cancel</button> : null}
    >
      <Field label="Name" name="name">{input('name', true)}</Field>
      <Field label="Key" name="key">{input('key', true)}</Field>
      <Field label="Description" name="description">{input('description')}</Field>
      {feature ? <Check label="Enabled" checked={form.isEnabled} onChange={(isEnabled) => setForm({ ...form, isEnabled })} /> : null}
    </Form>
  );
}
