/**
 * When a form whose fields mirror the URL (the events filters) loads its fields from the URL.
 *
 * `applied` is what the form last sent to the URL, `seen` the URL at the last render. The fields
 * reload only when the URL changes to something the form did not send: back, forward, a shared
 * link. A navigation the form started is a transition and may commit after the user's next choice;
 * until it does the URL still shows what it showed before, which is no change at all, so the choice
 * survives. (Comparing the URL with `applied` alone reloaded the fields from that stale URL.)
 */
export type UrlFormSync = { applied: string; seen: string };

export function syncWithUrl(state: UrlFormSync, urlKey: string): { next: UrlFormSync; reload: boolean } {
  if (urlKey === state.seen) return { next: state, reload: false };
  return { next: { applied: urlKey === state.applied ? state.applied : urlKey, seen: urlKey }, reload: urlKey !== state.applied };
}
