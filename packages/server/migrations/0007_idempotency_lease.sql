-- Idempotency-Key leases (ADR 0004). An IN_PROGRESS record belongs to one attempt until
-- lease_until; after it a retry may take the key over. committed_results is a JSON array of what the
-- request's transactions committed, each written inside its own transaction (text, not jsonb, so a
-- rebuilt reply keeps its key order).
alter table idempotency_records add column attempt_id uuid;
alter table idempotency_records add column lease_until timestamptz;
alter table idempotency_records add column committed_results text not null default '[]';
-- Records left IN_PROGRESS before this migration have no record of their effects: they keep the old
-- rule (blocked until the 24-hour window ends) rather than risk a second execution.
update idempotency_records set lease_until = created_at + interval '24 hours' where state = 'IN_PROGRESS';
