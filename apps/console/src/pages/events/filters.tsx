import { useState } from 'react';
import { Field, Form } from '../../components/form';
import { isoToLocal as toLocal, localToIso as toIso } from '../../local-time';
import { syncWithUrl, type UrlFormSync } from '../../url-form';

export const FILTERS = ['customerReferenceId', 'featureKey', 'eventType', 'flowId', 'from', 'to'] as const;
type Filter = (typeof FILTERS)[number];
type Values = Record<Filter, string>;

const EMPTY_FILTERS: Values = { customerReferenceId: '', featureKey: '', eventType: '', flowId: '', from: '', to: '' };

function filtersOf(params: URLSearchParams): Values {
  const values = { ...EMPTY_FILTERS };
  for (const f of FILTERS) values[f] = params.get(f) ?? '';
  return values;
}

/** The filters as the form shows them (times in the user's zone). */
const shown = (values: Values): Values => ({ ...values, from: toLocal(values.from || null), to: toLocal(values.to || null) });

/** The filter part of the URL (paging left out), to tell a change made here from one made elsewhere. */
const filterKey = (values: Values) => FILTERS.map((f) => values[f]).join('\u0000');

/** The URL's search for these filters (paging starts over). */
function searchOf(values: Values): URLSearchParams {
  const next = new URLSearchParams();
  for (const f of FILTERS) if (values[f]) next.set(f, values[f]);
  return next;
}

/**
 * The filter form. Its fields are the user's own state: applying or clearing sets them and the URL
 * together, so a choice made right after "Clear" survives the URL change, however late that change
 * commits. Only a URL change made elsewhere (back, forward, a shared link) loads the fields from the
 * URL.
 */
export function EventFilters({ params, onApply }: { params: URLSearchParams; onApply: (search: URLSearchParams) => void }) {
  const fromUrl = filtersOf(params);
  const urlKey = filterKey(fromUrl);
  const [values, setValues] = useState<Values>(() => shown(fromUrl));
  // Reload the fields only on a URL change this form did not make (url-form.ts).
  const [sync, setSync] = useState<UrlFormSync>({ applied: urlKey, seen: urlKey });
  const { next: synced, reload } = syncWithUrl(sync, urlKey);
  if (synced !== sync) {
    setSync(synced);
    if (reload) setValues(shown(fromUrl));
  }
  function apply(next: Values) {
    const sent = { ...next, from: toIso(next.from), to: toIso(next.to) };
    setValues(next);
    setSync((current) => ({ ...current, applied: filterKey(sent) }));
    onApply(searchOf(sent));
  }
  const input = (f: Filter, name: string = f, type?: string) => (
    <input type={type} name={name} value={values[f]} onChange={(e) => setValues((current) => ({ ...current, [f]: e.target.value }))} />
  );
  const clear = (
    <button type="button" className="secondary" onClick={() => apply(EMPTY_FILTERS)}>
      Clear
    </button>
  );
  return (
    <Form access="read" label="Event filters" submission={{ isPending: false, error: null }} onSubmit={() => apply(values)} submit="Apply filters" failed="" after={clear}>
      <Field label="Customer">{input('customerReferenceId', 'customer')}</Field>
      <Field label="Feature key">{input('featureKey')}</Field>
      <Field label="Kind">
        <select name="eventType" value={values.eventType} onChange={(e) => setValues((current) => ({ ...current, eventType: e.target.value }))}>
          <option value="">Any</option>
          <option value="CLIENT_TRACKED">CLIENT_TRACKED</option>
          <option value="ENTITLEMENT_CHECKED">ENTITLEMENT_CHECKED</option>
        </select>
      </Field>
      <Field label="Flow id">{input('flowId')}</Field>
      <Field label="From">{input('from', 'from', 'datetime-local')}</Field>
      <Field label="To">{input('to', 'to', 'datetime-local')}</Field>
    </Form>
  );
}
