-- A customer portal that acts (api-contract-money.md §3, ADR 0038).
-- Portal sessions carry one scope per permission flag: plan_change, cancel and auto_topup join read
-- and purchase. They exist only on portal sessions; customer keys keep read and purchase (api_keys).
alter table portal_sessions drop constraint portal_sessions_scopes_check;
alter table portal_sessions add constraint portal_sessions_scopes_check
  check (scopes <@ array['read', 'purchase', 'plan_change', 'cancel', 'auto_topup']::text[] and 'read' = any (scopes));

-- A hosted setup checkout (Stripe Checkout mode=setup) saves a card: purpose PAYMENT_METHOD, no
-- amount; its completion stores the payment method it saved.
alter table checkout_sessions drop constraint checkout_sessions_purpose_check;
alter table checkout_sessions add constraint checkout_sessions_purpose_check
  check (purpose in ('SUBSCRIPTION', 'CREDIT_TOPUP', 'INVOICE', 'PAYMENT_METHOD'));
alter table checkout_sessions add column payment_method_id text;
