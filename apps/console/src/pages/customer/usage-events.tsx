import { useState } from 'react';
import type { Schemas } from '../../api';
import { DataTable, type Column } from '../../components/data-table';
import { formatCredits, formatDateTime } from '../../format';
import { useCustomerUsageEvents } from '../../queries/customers';

type Event = Schemas['CustomerUsageEvent'];

const PAGE_SIZE = 20;

/**
 * The customer's recorded usage events of the last 90 days, newest first, as the customer's own
 * key reads them (`GET /api/v1/client/customers/{ref}/usage/events`); entitlement checks are not listed.
 */
export function CustomerUsageEvents({ customerRef }: { customerRef: string }) {
  const [offset, setOffset] = useState(0);
  const events = useCustomerUsageEvents(customerRef, offset, PAGE_SIZE);
  const columns: Column<Event>[] = [
    { header: 'Occurred', cell: (e) => formatDateTime(e.occurredAt) },
    { header: 'Feature', cell: (e) => <code>{e.featureKey}</code> },
    { header: 'Event', cell: (e) => e.eventName },
    { header: 'Units', num: true, cell: (e) => `${formatCredits(e.usageUnits)}${e.usageUnitType ? ` ${e.usageUnitType}` : ''}` },
    { header: 'Idempotency key', cell: (e) => <code>{e.eventIdempotencyKey}</code> },
  ];
  return (
    <DataTable
      label="Usage events"
      what="usage events"
      query={events}
      columns={columns}
      rows={events.data?.items}
      rowKey={(e) => e.id}
      empty="No usage recorded in the last 90 days."
      paging={events.data ? { ...events.data.pagination, onGo: setOffset } : undefined}
    />
  );
}
