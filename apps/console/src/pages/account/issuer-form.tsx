import { useState } from 'react';
import { Field, Form } from '../../components/form';
import { QueryView } from '../../components/ui';
import { useAccountSettings, useSaveAccountSettings } from '../../queries/account';

type Issuer = { invoiceNumberPrefix: string; legalName: string; addressLines: string; taxId: string; contactEmail: string };

/**
 * The issuer printed on invoice documents and the invoice number prefix (api-contract-money.md §1.1).
 * Owners and admins change it; other roles read it. Changes apply to invoices finalised afterwards:
 * an issued invoice keeps the copy taken when it was numbered.
 */
export function IssuerForm() {
  const settings = useAccountSettings();
  return (
    <QueryView query={settings} what="the invoice issuer">
      {(data) => <IssuerFields initial={{ invoiceNumberPrefix: data.invoiceNumberPrefix, legalName: data.legalName ?? '', addressLines: data.addressLines.join('\n'), taxId: data.taxId ?? '', contactEmail: data.contactEmail ?? '' }} />}
    </QueryView>
  );
}

function IssuerFields({ initial }: { initial: Issuer }) {
  const [form, setForm] = useState(initial);
  const save = useSaveAccountSettings();
  const set = (key: keyof Issuer) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setForm({ ...form, [key]: e.target.value });
  const submit = () =>
    save.mutate({
      invoiceNumberPrefix: form.invoiceNumberPrefix,
      legalName: form.legalName,
      addressLines: form.addressLines.split('\n'),
      taxId: form.taxId,
      contactEmail: form.contactEmail,
    });
  return (
    <Form access="admin" label="Invoice issuer" layout="grid" submission={save} onSubmit={submit} submit="Save issuer" pending="Saving…" failed="Issuer not saved" saved>
      <Field label="Invoice number prefix" name="invoiceNumberPrefix">
        <input value={form.invoiceNumberPrefix} onChange={set('invoiceNumberPrefix')} maxLength={10} />
      </Field>
      <Field label="Legal name" name="legalName">
        <input value={form.legalName} onChange={set('legalName')} maxLength={200} />
      </Field>
      <Field label="Address (one line each, at most 6)" name="addressLines">
        <textarea rows={4} value={form.addressLines} onChange={set('addressLines')} />
      </Field>
      <Field label="Tax ID" name="taxId">
        <input value={form.taxId} onChange={set('taxId')} maxLength={64} />
      </Field>
      <Field label="Contact e-mail" name="contactEmail">
        <input type="email" value={form.contactEmail} onChange={set('contactEmail')} />
      </Field>
    </Form>
  );
}
