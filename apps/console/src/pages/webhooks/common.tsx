/** What the webhook pages share: the endpoint picker, the event-type select, an event's payload as text. */
import { jsonText } from '../../json-text';
import { useWebhookEndpoints, type WebhookEndpoint, type WebhookEvent } from '../../queries/webhooks';

/** "https://…/hook (Billing sync)": an endpoint as the pickers and logs name it. */
export function endpointLabel(e: WebhookEndpoint): string {
  return e.description ? `${e.url} (${e.description})` : e.url;
}

/** A select of the account's endpoints by URL and description; `none` names the empty choice. */
export function EndpointPicker({ value, onChange, none, name, required }: { value: string; onChange: (id: string) => void; none: string; name?: string; required?: boolean }) {
  const endpoints = useWebhookEndpoints();
  const rows = endpoints.data ?? [];
  return (
    <select name={name} required={required} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{endpoints.isPending ? 'Loading endpoints…' : rows.length === 0 ? 'No endpoint yet' : none}</option>
      {rows.map((e) => (
        <option key={e.id} value={e.id}>
          {endpointLabel(e)}
          {e.enabled ? '' : ' — disabled'}
        </option>
      ))}
    </select>
  );
}

/** A filter's select: "Any" or one of the choices (an enum of the API). */
export function AnyChoice<T extends string>({ value, options, onChange, name }: { value: string; options: readonly T[]; onChange: (value: T | '') => void; name?: string }) {
  return (
    <select name={name} value={value} onChange={(e) => onChange(e.target.value as T | '')}>
      <option value="">Any</option>
      {options.map((o) => (
        <option key={o}>{o}</option>
      ))}
    </select>
  );
}

/**
 * An event's payload as JSON text, as sent: the console's exact codec read it (decimal amounts are
 * decimal strings) and writes it back, each amount as the number lexeme it arrived as (json-text.ts).
 */
export function Payload({ event, label }: { event: WebhookEvent; label: string }) {
  return (
    <pre className="payload" role="region" tabIndex={0} aria-label={label}>
      {jsonText(event)}
    </pre>
  );
}

/** The page's `offset` in the URL (the API's offset paging), and a move to another page that keeps the filters. */
export function useOffsetParam(params: URLSearchParams, setParams: (next: URLSearchParams) => void) {
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  function goTo(nextOffset: number) {
    const next = new URLSearchParams(params);
    if (nextOffset > 0) next.set('offset', String(nextOffset));
    else next.delete('offset');
    setParams(next);
  }
  return { offset, goTo };
}

/** The URL's filters (paging left out): `key` remounts a filter form when they change elsewhere (back, a link). */
export function filtersOf<F extends string>(params: URLSearchParams, names: readonly F[]): Record<F, string> {
  return Object.fromEntries(names.map((n) => [n, params.get(n) ?? ''])) as Record<F, string>;
}

/** The URL's search for these filters (paging starts over). */
export function searchOf(values: Record<string, string>): URLSearchParams {
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) next.set(name, value);
  return next;
}
