#!/bin/bash
# Recovery time, by hand: a data dir with a 1M-row table, 4 views and one
# view backfilling; kill -9 mid-backfill, restart, time the first query and
# the end of the resumed backfill, and show the views (which must equal
# their queries). Usage: go build -o /tmp/streamdb ./cmd/streamdb && tests/testdata/recovery_time.sh /tmp/streamdb
BIN=${1:?usage: recovery_time.sh path/to/streamdb}; D=$(mktemp -d); PORT=${PORT:-54997}
P="psql -h 127.0.0.1 -p $PORT -U x -d x -X -q"
"$BIN" --data-dir $D --listen 127.0.0.1:$PORT >$D.r1.log 2>&1 & PID=$!
sleep 1
$P -c "CREATE TABLE t (id bigint PRIMARY KEY, k int, v bigint)" -c "INSERT INTO t SELECT g, g % 1000, g FROM generate_series(1, 1000000) AS g" \
   -c "CREATE TABLE d (k int PRIMARY KEY, name text)" -c "INSERT INTO d SELECT g, 'n' || g FROM generate_series(0, 999) AS g" \
   -c "CREATE MATERIALIZED VIEW v1 AS SELECT k, count(*) AS n, sum(v) AS s FROM t GROUP BY k" \
   -c "CREATE MATERIALIZED VIEW v2 AS SELECT t.id, d.name FROM t JOIN d ON t.k = d.k WHERE t.v % 10 = 0" \
   -c "CREATE MATERIALIZED VIEW v3 AS SELECT count(*) AS n FROM v1" \
   -c "SET background_ddl = true" -c "CREATE MATERIALIZED VIEW v4 WITH (backfill_rate_limit = 100000) AS SELECT k % 10 AS kk, count(*) AS n FROM t GROUP BY k % 10"
sleep 2
$P -c "SELECT phase, rows_read FROM streamdb_catalog.ddl_progress"
kill -9 $PID; wait $PID 2>/dev/null
T0=$(date +%s.%N)
"$BIN" --data-dir $D --listen 127.0.0.1:$PORT >$D.r2.log 2>&1 & PID=$!
until $P -c "SELECT 1" >/dev/null 2>&1; do sleep 0.01; done
T1=$(date +%s.%N)
$P -c "SELECT phase, rows_read FROM streamdb_catalog.ddl_progress"
$P -c "ALTER MATERIALIZED VIEW v4 SET BACKFILL_RATE_LIMIT = DEFAULT" -c "WAIT"
T2=$(date +%s.%N)
$P -c "SELECT (SELECT count(*) FROM v1), (SELECT sum(n) FROM v4), (SELECT count(*) FROM v2), (SELECT n FROM v3)"
echo "restart to first query: $(echo "$T1 - $T0" | bc) s; to backfill done (rate limit lifted): $(echo "$T2 - $T0" | bc) s"
kill $PID; wait $PID 2>/dev/null
rm -rf "$D" "$D".r1.log "$D".r2.log
