-- Internal AI spend, part 2 (contract §7.7): outcome sources (a code host or tracker the service
-- pulls shipped work from) and outcomes (shipped work, posted or pulled).

-- The token is sealed with ctx.secrets bound to 'spend_outcome_sources:<accountId>:<id>:token'.
-- Delete is hard: the row (and its token) goes, and the outcomes it pulled go with it (cascade
-- below); posted outcomes have no source_id and stay.
create table spend_outcome_sources (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  source text not null check (source in ('GITHUB', 'LINEAR')),
  label text not null,
  token_sealed text not null,
  -- GITHUB: 'owner/repo,…' (canonical: trimmed, de-duplicated, comma separated without spaces).
  scope text not null,
  default_spend_unit_id uuid,
  status text not null check (status in ('ACTIVE', 'ERROR')),
  last_error text,
  last_synced_at timestamptz,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  foreign key (account_id, default_spend_unit_id) references spend_units (account_id, id) on delete set null (default_spend_unit_id)
);

-- externalId is unique per (account, source): MANUAL (posted) and GITHUB (pulled) are separate
-- spaces, so a post never rewrites a pulled outcome and a pull never rewrites a posted one.
-- requested_spend_unit_id is the spendUnitId the poster sent (kept so a later partial update
-- re-attributes from the merged fields); spend_unit_id is the unit the attribution order chose on
-- the last write (null: unattributed). A deleted unit leaves the outcome unattributed.
create table spend_outcomes (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  source text not null check (source in ('GITHUB', 'LINEAR', 'MANUAL')),
  -- The outcome source that pulled it; null for posted (MANUAL) outcomes.
  source_id uuid,
  kind text not null check (kind in ('PR_MERGED', 'ISSUE_DONE', 'CUSTOM')),
  external_id text not null,
  title text,
  url text,
  actor_email text,
  actor_login text,
  requested_spend_unit_id uuid,
  spend_unit_id uuid,
  occurred_at timestamptz not null,
  ai_assisted boolean,
  ai_tool text,
  created_at timestamptz not null,
  modified_at timestamptz not null,
  unique (account_id, id),
  unique (account_id, source, external_id),
  check ((source = 'MANUAL') = (source_id is null)),
  foreign key (account_id, source_id) references spend_outcome_sources (account_id, id) on delete cascade,
  foreign key (account_id, requested_spend_unit_id) references spend_units (account_id, id) on delete set null (requested_spend_unit_id),
  foreign key (account_id, spend_unit_id) references spend_units (account_id, id) on delete set null (spend_unit_id)
);
-- The recent-outcomes list (latest 200, newest first) and report windows by time.
create index spend_outcomes_occurred_idx on spend_outcomes (account_id, occurred_at desc, id desc);
-- Source delete (cascade) and per-source reads.
create index spend_outcomes_source_idx on spend_outcomes (account_id, source_id) where source_id is not null;
-- Unit deletes (set null) and per-unit report sums.
create index spend_outcomes_unit_idx on spend_outcomes (account_id, spend_unit_id) where spend_unit_id is not null;
create index spend_outcomes_requested_unit_idx on spend_outcomes (account_id, requested_spend_unit_id) where requested_spend_unit_id is not null;
create index spend_outcome_sources_default_unit_idx on spend_outcome_sources (account_id, default_spend_unit_id) where default_spend_unit_id is not null;
