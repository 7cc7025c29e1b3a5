-- Keys left by a crash (issue 31 item 5, ADR 0033). Every server process that listens registers a
-- boot of its node identity (APP_NODE_ID, or host:port): the boot epoch of that identity goes up by
-- one. An Idempotency-Key's lease records the node and epoch that hold it; a retry may take over a
-- lease at once when its holder's node has booted again since (the process that held it is gone),
-- and otherwise only when the lease runs out, as before.
create table node_boots (
  node_id text primary key,
  epoch bigint not null,
  booted_at timestamptz not null
);

alter table idempotency_records add column owner_node text;
alter table idempotency_records add column owner_epoch bigint;
