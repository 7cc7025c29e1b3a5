/** Usage events: the paged, filtered list and the overview of the last days. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { OperationQuery } from '@tally/client';
import { api, unwrap } from '../api';

export type EventQuery = OperationQuery<'listUsageEvents'>;

export const eventKeys = {
  list: (query: EventQuery) => ['events', query] as const,
  overview: (days: number) => ['event-overview', days] as const,
};

/** A page of events; the previous page stays on screen while the next one loads. */
export function useEvents(query: EventQuery) {
  return useQuery({
    queryKey: eventKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/tanso/events', { params: { query } })),
    placeholderData: keepPreviousData,
  });
}

/** Events, units and revenue per day of the last `days` days, with the top features and customers. */
export function useEventOverview(days: number, top: number) {
  return useQuery({
    queryKey: eventKeys.overview(days),
    queryFn: () => unwrap(api.GET('/api/v1/tanso/events/overview', { params: { query: { days, top, eventType: 'CLIENT_TRACKED' } } })),
  });
}
