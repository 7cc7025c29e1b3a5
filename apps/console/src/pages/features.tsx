import { useState } from 'react';
import { DataTable, type Column } from '../components/data-table';
import { Time } from '../components/figures';
import { Field, Form } from '../components/form';
import { PageHeader, StatusBadge } from '../components/ui';
import { useCreateFeature, useFeatures } from '../queries/catalog';
import type { Schemas } from '../api';

const COLUMNS: Column<Schemas['Feature']>[] = [
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

export default function FeaturesPage() {
  const features = useFeatures();
  return (
    <section>
      <PageHeader title="Features" />
      <NewFeatureForm />
      <DataTable label="Features" query={features} columns={COLUMNS} rows={features.data} rowKey={(f) => f.id} empty="No features yet: create the first one above." />
    </section>
  );
}

const BLANK = { name: '', key: '', description: '' };

function NewFeatureForm() {
  const [form, setForm] = useState(BLANK);
  const create = useCreateFeature(() => setForm(BLANK));
  const input = (name: keyof typeof BLANK, required = false) => (
    <input name={name} required={required} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
  );
  return (
    <Form
      label="New feature"
      submission={create}
      onSubmit={() => create.mutate({ name: form.name, key: form.key, ...(form.description ? { description: form.description } : {}) })}
      submit="Create feature"
      failed="Feature not created"
    >
      <Field label="Name">{input('name', true)}</Field>
      <Field label="Key">{input('key', true)}</Field>
      <Field label="Description">{input('description')}</Field>
    </Form>
  );
}
