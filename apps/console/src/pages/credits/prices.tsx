import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { UnitPrice } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { ErrorNote } from '../../components/ui';
import { decimalText } from '../../format';
import { useCreditPrices, useDeletePrice, usePublishPrice } from '../../queries/credits';
import { EffectiveFrom, isoOf, scheduleColumns, Warnings } from './tariff';

type Price = Schemas['CreditPrice'];
type Warning = Schemas['CreditTariffWarning'];

const COLUMNS: Column<Price>[] = [
  { header: 'Denomination', cell: (p) => <code>{p.denomination}</code> },
  { header: 'Currency', cell: (p) => p.currency },
  { header: 'Price per credit', num: true, cell: (p) => <UnitPrice amount={p.pricePerCredit} currency={p.currency} /> },
];

/** The price book: the price of a credit by denomination and currency, each row from its effective date. */
export function Prices() {
  const prices = useCreditPrices();
  const remove = useDeletePrice();
  const columns = [...COLUMNS, ...scheduleColumns<Price>((p) => `Delete scheduled price ${p.denomination} ${decimalText(p.pricePerCredit)}`, remove.mutate)];
  return (
    <>
      <h2>Price book</h2>
      <DataTable label="Price book" what="the price book" query={prices} columns={columns} rows={prices.data} rowKey={(p) => p.id} empty="No price per credit yet." />
      <ErrorNote error={remove.error} title="Not deleted" />
      <PublishPrice />
    </>
  );
}

function PublishPrice() {
  const [form, setForm] = useState({ denomination: '', currency: 'USD', pricePerCredit: '', from: '' });
  const [warnings, setWarnings] = useState<Warning[] | undefined>();
  const publish = usePublishPrice((w) => {
    setWarnings(w);
    setForm((f) => ({ ...f, pricePerCredit: '' }));
  });
  const input = (field: 'denomination' | 'currency' | 'pricePerCredit') => (
    <input required inputMode={field === 'pricePerCredit' ? 'decimal' : undefined} value={form[field]} onChange={(e) => setForm({ ...form, [field]: e.target.value })} />
  );
  function submit() {
    const row = { denomination: form.denomination || null, currency: form.currency, pricePerCredit: form.pricePerCredit };
    publish.mutate({ effectiveFrom: isoOf(form.from), row });
  }
  return (
    <>
      <Form access="admin" label="Publish price" submission={publish} onSubmit={submit} submit="Publish price" failed="Price not published">
        <Field label="Denomination">{input('denomination')}</Field>
        <Field label="Currency">{input('currency')}</Field>
        <Field label="Price per credit">{input('pricePerCredit')}</Field>
        <EffectiveFrom value={form.from} onChange={(from) => setForm({ ...form, from })} />
      </Form>
      <Warnings warnings={warnings} />
    </>
  );
}
