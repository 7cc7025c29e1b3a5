-- For migrations written after a database was distributed on Citus (ADR 0023). A new tenant table
-- is distributed by the migrator after its migration; but Citus refuses a foreign key from a table
-- not yet distributed to a distributed one. So a migration that adds a tenant table with foreign
-- keys to other tenant tables creates it without them, calls tally_distribute('the_table'), then
-- adds them (alter table … add foreign key …). On plain PostgreSQL, PGlite and a Citus database not
-- yet distributed this does nothing: the table is distributed with the others later.
create function tally_distribute(tbl text) returns void
language plpgsql as $$
declare
  distributed boolean := false;
begin
  if not exists (select 1 from pg_extension where extname = 'citus') then
    return;
  end if;
  -- Dynamic: pg_dist_partition exists only where Citus is installed.
  execute 'select exists (select 1 from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
             join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = current_schema() and c.relname = ''customers'' and p.partmethod = ''h'')'
    into distributed;
  if distributed then
    execute format('select create_distributed_table(%L, %L, colocate_with => %L)', tbl, 'account_id', 'customers');
  end if;
end $$;
