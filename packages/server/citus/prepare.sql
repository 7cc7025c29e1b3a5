-- Citus, step 1 of 2 (ADR 0023): the schema changes a Citus cluster needs beyond Tally's migrations,
-- run once in one transaction on a migrated database before the tables are distributed (platform/db/citus.ts, `npm run citus:distribute`, which runs this file itself). Plain PostgreSQL
-- accepts them too: test/integration/platform/citus-schema.test.ts runs this file on both test
-- databases and then checks every key against Citus's rules.

-- Reference tables (copied to every node) may not reference distributed tables. Three of them do;
-- on Citus the services keep these ids valid themselves (ADR 0023, "What would need work").
alter table api_keys drop constraint if exists api_keys_account_id_customer_id_fkey;
alter table portal_sessions drop constraint if exists portal_sessions_account_id_customer_id_fkey;
alter table account_settings drop constraint if exists account_settings_account_id_agent_signup_default_plan_id_fkey;

-- A distributed table's unique keys must contain its distribution column. Tenant tables keyed by
-- their row id alone are re-keyed (account_id, id); where a unique (account_id, id) already exists
-- (every foreign key points at it) it becomes the replica identity instead of a second index.
do $$
declare
  r record;
  pair_index text;
begin
  for r in
    select c.oid, c.relname, k.conname
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and k.contype = 'p' and not c.relispartition
       and pg_get_constraintdef(k.oid) = 'PRIMARY KEY (id)'
       and c.relname not in ('accounts', 'users', 'api_keys', 'account_settings', 'spend_price_seed_state')
       and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped)
  loop
    select i.relname into pair_index
      from pg_constraint u join pg_class i on i.oid = u.conindid
     where u.conrelid = r.oid and u.contype = 'u' and pg_get_constraintdef(u.oid) = 'UNIQUE (account_id, id)';
    execute format('alter table %I drop constraint %I', r.relname, r.conname);
    if pair_index is null then
      execute format('alter table %I add constraint %I primary key (account_id, id)', r.relname, r.conname);
    else
      execute format('alter table %I replica identity using index %I', r.relname, pair_index);
    end if;
  end loop;
end $$;
