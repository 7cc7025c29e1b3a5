import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { Field, Form } from '../../components/form';
import { ErrorNote } from '../../components/ui';
import { decimalText } from '../../format';
import { useFeatures } from '../../queries/catalog';
import { useCreditWeights, useDeleteWeight, usePublishWeight } from '../../queries/credits';
import { EffectiveFrom, isoOf, scheduleColumns, Warnings } from './tariff';

type Weight = Schemas['CreditWeight'];
type Warning = Schemas['CreditTariffWarning'];

const COLUMNS: Column<Weight>[] = [
  { header: 'Feature', cell: (w) => <code>{w.featureKey}</code> },
  { header: 'Model', cell: (w) => w.model ?? <span className="muted">feature default</span> },
  { header: 'Credits per unit', num: true, cell: (w) => decimalText(w.creditsPerUnit) },
];

/** The weight tariff: credits per unit by feature and model, each row from its effective date. */
export function Weights() {
  const weights = useCreditWeights();
  const remove = useDeleteWeight();
  const columns = [...COLUMNS, ...scheduleColumns<Weight>((w) => `Delete scheduled weight ${w.featureKey} ${w.model ?? 'default'}`, remove.mutate)];
  return (
    <>
      <h2>Weight tariff</h2>
      <DataTable label="Weight tariff" what="the weight tariff" query={weights} columns={columns} rows={weights.data} rowKey={(w) => w.id} empty="No weight row: one unit burns one credit." />
      <ErrorNote error={remove.error} title="Not deleted" />
      <PublishWeight />
    </>
  );
}

function PublishWeight() {
  const features = useFeatures();
  const [form, setForm] = useState({ featureId: '', model: '', creditsPerUnit: '', from: '' });
  const [warnings, setWarnings] = useState<Warning[] | undefined>();
  const publish = usePublishWeight((w) => {
    setWarnings(w);
    setForm((f) => ({ ...f, creditsPerUnit: '', model: '' }));
  });
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  function submit() {
    const row = { featureId: form.featureId, creditsPerUnit: form.creditsPerUnit, ...(form.model ? { model: form.model } : {}) };
    publish.mutate({ effectiveFrom: isoOf(form.from), row });
  }
  return (
    <>
      <Form access="admin" label="Publish weight" submission={publish} onSubmit={submit} submit="Publish weight" failed="Weight not published">
        <Field label="Feature">
          <select required value={form.featureId} onChange={set('featureId')}>
            <option value="">Choose…</option>
            {(features.data ?? []).map((f) => (
              <option key={f.id} value={f.id}>
                {f.key}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Model (empty: feature default)">
          <input value={form.model} onChange={set('model')} />
        </Field>
        <Field label="Credits per unit">
          <input required inputMode="decimal" value={form.creditsPerUnit} onChange={set('creditsPerUnit')} />
        </Field>
        <EffectiveFrom value={form.from} onChange={(from) => setForm({ ...form, from })} />
      </Form>
      <Warnings warnings={warnings} />
    </>
  );
}
