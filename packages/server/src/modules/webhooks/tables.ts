import type { ColumnType, Selectable } from 'kysely';

/**
 * The webhooks module's tables (migration 0038): endpoints, deliveries and their attempts. The events
 * themselves are the platform's outbox (`outbound_events`, platform/db/tables.ts).
 * Merged into Kysely's `DB` by the augmentation at the end (ADR 0031).
 */
export type DisabledReason = 'MANUAL' | 'FAILING' | 'GONE';
export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';
export type AttemptError = 'timeout' | 'connection_failed' | 'url_refused';

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  event_types: ColumnType<string[], string[] | undefined, string[]>;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret_sealed: string;
  secret_hint: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  modified_at: Date;
  deleted_at: Date | null;
}
export type EndpointRow = Selectable<WebhookEndpointsTable>;

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: ColumnType<number, number | undefined, number>;
  next_attempt_at: Date | null;
  lease_until: Date | null;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  resend: boolean;
  created_at: Date;
}
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export interface WebhookAttemptsTable {
  account_id: string;
  delivery_id: string;
  number: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: AttemptError | null;
  success: boolean;
}
export type AttemptRow = Selectable<WebhookAttemptsTable>;

declare module '../../platform/db/tables.js' {
  interface DB {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
