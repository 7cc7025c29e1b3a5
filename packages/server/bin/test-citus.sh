#!/usr/bin/env bash
# `npm run test:citus [-- FILE…]` (ADR 0023): the server suite (or the named test files) on a real Citus
# 13 cluster: a coordinator and two workers started by the shared citus-cluster script (built into this
# machine's PostgreSQL 15 the first time, about 3 minutes, as root), a database of its own on the three,
# and every test database a schema there, migrated and distributed by account_id before use.
#   CITUS_CLUSTER_SCRIPT  the script (default: ../shared/scripts/citus-cluster beside the checkout)
#   CITUS_DIR, CITUS_PORT the cluster's data directory and coordinator port (/tmp/tally-citus, 5470)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(cd ../.. && pwd)
cluster=${CITUS_CLUSTER_SCRIPT:-}
for candidate in "$root/../shared/scripts/citus-cluster" /work/shared/scripts/citus-cluster; do
  [ -n "$cluster" ] && break
  [ -x "$candidate" ] && cluster=$candidate
done
[ -n "$cluster" ] || { echo "test:citus: no citus-cluster script (set CITUS_CLUSTER_SCRIPT)" >&2; exit 2; }
dir=${CITUS_DIR:-/tmp/tally-citus} port=${CITUS_PORT:-5470}
"$cluster" start "$dir" "$port" >&2
name="tally_citus_$$"
url=$("$cluster" createdb "$name" "$dir" "$port")
drop() {
  for p in "$port" $((port + 1)) $((port + 2)); do
    psql -qAt -h 127.0.0.1 -p "$p" -U postgres -d postgres -c "drop database if exists $name with (force)" >/dev/null 2>&1 || true
  done
}
trap drop EXIT
# Four shards per table instead of 32: each test distributes a schema of its own (about 60 tables).
psql -qAt "$url" -c "alter database $name set citus.shard_count = 4"
# Bundled and grouped like `npm test` (bin/test.mjs, ADR 0044); no FILE: the whole suite.
TEST_ONLY="$*" TEST_DATABASE_URL=$url TEST_CITUS=1 node bin/test.mjs
