import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { syncWithUrl, type UrlFormSync } from '../url-form';
import { api, unwrap } from '../api';
import { formatCount, formatCredits } from '../format';
import { Empty, PageHeader, QueryView, Time, UnitPrice } from '../ui';

const PAGE_SIZE = 25;
const FILTERS = ['customerReferenceId', 'featureKey', 'eventType', 'flowId', 'from', 'to'] as const;
type Filter = (typeof FILTERS)[number];
type EventKind = 'CLIENT_TRACKED' | 'ENTITLEMENT_CHECKED';

/** datetime-local text (the user's zone) ↔ the ISO instant the API takes. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
function toLocal(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * Usage events, newest first, filtered by customer, feature, kind, flowId and time, paged by
 * offset. The filters live in the URL so a filtered view can be shared. A credit-backed event
 * carries its receipt in its context (credits drawn, usage covered, the weight row matched).
 */
export default function EventsPage() {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const query: Record<string, string | number> = { limit: PAGE_SIZE, offset };
  for (const f of FILTERS) {
    const v = params.get(f);
    if (v) query[f] = v;
  }
  const events = useQuery({
    queryKey: ['events', query],
    queryFn: () => unwrap(api.GET('/api/v1/tanso/events', { params: { query: query as { eventType?: EventKind } } })),
    placeholderData: keepPreviousData,
  });
  // Event revenue carries no currency of its own: it is shown in the account's currency, every digit
  // (one event's revenue is often a fraction of a cent, which money rounded to cents would hide).
  const settings = useQuery({ queryKey: ['account-settings'], queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
  const currency = settings.data?.currency;
  const [open, setOpen] = useState<string | null>(null);

  function goTo(nextOffset: number) {
    const next = new URLSearchParams(params);
    if (nextOffset > 0) next.set('offset', String(nextOffset));
    else next.delete('offset');
    setParams(next);
  }

  return (
    <section>
      <PageHeader title="Events" />
      <EventFilters
        params={params}
        onApply={(values) => {
          const next = new URLSearchParams();
          for (const f of FILTERS) if (values[f]) next.set(f, values[f]);
          setParams(next);
        }}
      />
      <QueryView query={events} what="events">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No events match these filters.</Empty>
          ) : (
            <>
              <table aria-label="Events">
                <thead>
                  <tr>
                    <th>Occurred</th>
                    <th>Customer</th>
                    <th>Feature</th>
                    <th>Event</th>
                    <th>Kind</th>
                    <th className="num">Units</th>
                    <th className="num">Revenue</th>
                    <th>Flow</th>
                    <th className="num">Credits drawn</th>
                  </tr>
                </thead>
                <tbody>
                  {page.items.map((e) => {
                    const ctx = e.context as Record<string, unknown>;
                    const drawn = ctx.credit_deducted as string | number | undefined;
                    return (
                      <Fragment key={e.id}>
                        <tr>
                          <td>
                            <Time iso={e.occurredAt} />
                          </td>
                          <td>{e.customerReferenceId}</td>
                          <td>
                            <code>{e.featureKey}</code>
                          </td>
                          <td>{e.eventName}</td>
                          <td>{e.eventType}</td>
                          <td className="num">{formatCredits(e.usageUnits)}</td>
                          <td className="num">{currency ? <UnitPrice amount={e.revenueAmount} currency={currency} /> : '—'}</td>
                          <td>{e.flowId ? <code>{e.flowId}</code> : '—'}</td>
                          <td className="num">
                            {drawn === undefined ? (
                              '—'
                            ) : (
                              <button
                                type="button"
                                className="secondary"
                                aria-expanded={open === e.id}
                                aria-label={`${formatCredits(drawn)}: receipt of ${e.eventIdempotencyKey}`}
                                onClick={() => setOpen(open === e.id ? null : e.id)}
                              >
                                {formatCredits(drawn)}
                              </button>
                            )}
                          </td>
                        </tr>
                        {open === e.id ? (
                          <tr>
                            <td colSpan={9}>
                              <Receipt ctx={ctx} idempotencyKey={e.eventIdempotencyKey} />
                            </td>
                          </tr>
                        ) : null}
                      </Fragment>
                    );
                  })}
                </tbody>
              </table>
              <Pager offset={page.pagination.offset} limit={page.pagination.limit} total={page.pagination.total} hasMore={page.pagination.hasMore} onGo={goTo} />
            </>
          )
        }
      </QueryView>
    </section>
  );
}

function Receipt({ ctx, idempotencyKey }: { ctx: Record<string, unknown>; idempotencyKey: string }) {
  const rows: [string, unknown][] = [
    ['Credits drawn', ctx.credit_deducted],
    ['Usage covered by credits', ctx.usage_covered_by_credits],
    ['Usage left to bill', ctx.credit_remaining_usage],
    ['Weight match', ctx.credit_weight_match],
    ['Weight row', ctx.credit_weight_id],
  ];
  return (
    <dl className="receipt" aria-label={`Receipt ${idempotencyKey}`}>
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>
            {value === null || value === undefined
              ? '—'
              : label.startsWith('Weight')
                ? <code>{String(value)}</code>
                : formatCredits(value as string)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function Pager({ offset, limit, total, hasMore, onGo }: { offset: number; limit: number; total: number; hasMore: boolean; onGo: (offset: number) => void }) {
  const first = total === 0 ? 0 : offset + 1;
  const last = Math.min(offset + limit, total);
  return (
    <nav className="row pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={offset === 0} onClick={() => onGo(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span role="status">
        {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="secondary" disabled={!hasMore} onClick={() => onGo(offset + limit)}>
        Next
      </button>
    </nav>
  );
}

const EMPTY_FILTERS: Record<Filter, string> = { customerReferenceId: '', featureKey: '', eventType: '', flowId: '', from: '', to: '' };

function filtersOf(params: URLSearchParams): Record<Filter, string> {
  const values = { ...EMPTY_FILTERS };
  for (const f of FILTERS) values[f] = params.get(f) ?? '';
  return values;
}

/** The filter part of the URL (paging left out), to tell a change made here from one made elsewhere. */
const filterKey = (values: Record<Filter, string>) => FILTERS.map((f) => values[f]).join('\u0000');

/**
 * The filter form. Its fields are the user's own state: applying or clearing sets them and the URL
 * together, so a choice made right after "Clear" survives the URL change, however late that change
 * commits. Only a URL change made elsewhere (back, forward, a shared link) loads the fields from the
 * URL.
 */
function EventFilters({ params, onApply }: { params: URLSearchParams; onApply: (values: Record<Filter, string>) => void }) {
  const fromUrl = filtersOf(params);
  const urlKey = filterKey(fromUrl);
  const [values, setValues] = useState<Record<Filter, string>>(() => ({ ...fromUrl, from: toLocal(fromUrl.from || null), to: toLocal(fromUrl.to || null) }));
  // Reload the fields only on a URL change this form did not make (url-form.ts).
  const [sync, setSync] = useState<UrlFormSync>({ applied: urlKey, seen: urlKey });
  const { next: synced, reload } = syncWithUrl(sync, urlKey);
  if (synced !== sync) {
    setSync(synced);
    if (reload) setValues({ ...fromUrl, from: toLocal(fromUrl.from || null), to: toLocal(fromUrl.to || null) });
  }
  function apply(next: Record<Filter, string>) {
    const sent = { ...next, from: toIso(next.from), to: toIso(next.to) };
    setValues(next);
    setSync((current) => ({ ...current, applied: filterKey(sent) }));
    onApply(sent);
  }
  const set = (f: Filter) => (e: { target: { value: string } }) => {
    const value = e.target.value;
    setValues((current) => ({ ...current, [f]: value }));
  };
  function submit(event: FormEvent) {
    event.preventDefault();
    apply(values);
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Event filters">
      <label>
        Customer
        <input name="customer" value={values.customerReferenceId} onChange={set('customerReferenceId')} />
      </label>
      <label>
        Feature key
        <input name="featureKey" value={values.featureKey} onChange={set('featureKey')} />
      </label>
      <label>
        Kind
        <select name="eventType" value={values.eventType} onChange={set('eventType')}>
          <option value="">Any</option>
          <option value="CLIENT_TRACKED">CLIENT_TRACKED</option>
          <option value="ENTITLEMENT_CHECKED">ENTITLEMENT_CHECKED</option>
        </select>
      </label>
      <label>
        Flow id
        <input name="flowId" value={values.flowId} onChange={set('flowId')} />
      </label>
      <label>
        From
        <input type="datetime-local" name="from" value={values.from} onChange={set('from')} />
      </label>
      <label>
        To
        <input type="datetime-local" name="to" value={values.to} onChange={set('to')} />
      </label>
      <button type="submit">Apply filters</button>
      <button type="button" className="secondary" onClick={() => apply(EMPTY_FILTERS)}>
        Clear
      </button>
    </form>
  );
}
