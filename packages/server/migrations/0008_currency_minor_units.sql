-- Money columns carry the invoice currency's ISO 4217 minor units (JPY 0, USD 2, KWD 3, CLF 4), so
-- their scale is the widest currency's: 4 places, with the 16 integer digits they had (ADR 0006).
-- Values already stored (2 dp) are unchanged; the code writes each amount at its currency's places.
alter table plans alter column price_amount type numeric(20, 4);
alter table invoices alter column amount type numeric(20, 4);
alter table invoice_items alter column charge_amount type numeric(20, 4);
