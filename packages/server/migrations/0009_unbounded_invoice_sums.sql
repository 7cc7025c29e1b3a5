-- An invoice line is a period's SUM of usage revenue, and an invoice sums its lines: per-event input
-- bounds cannot cap a sum that grows with the number of events, and a numeric(20,4) line overflowed
-- (failing that subscription's rollover on every cycle run). Sums are unconstrained NUMERIC; the code
-- still writes each amount at its currency's minor units (ADR 0006). Plan prices stay numeric(20,4):
-- they are one bounded input, not a sum.
alter table invoices alter column amount type numeric;
alter table invoice_items alter column charge_amount type numeric;
