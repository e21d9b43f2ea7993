#!/bin/bash
# Recomputes the expected column of a golden file with PostgreSQL 15:
#   cut -f1-5 to_char_number.tsv | ./golden.sh "psql -h HOST -U USER DB" > to_char_number.tsv
# Input: function, type1, value1, type2, value2 (tab-separated, COPY text
# format); output: the same with the result, NULL or "ERROR sqlstate
# message" appended, computed with TimeZone UTC.
set -euo pipefail
psql_cmd=${1:-psql}
{
	cat <<'SQL'
set timezone = 'UTC';
create temp table c (n serial, fn text, t1 text, v1 text, t2 text, v2 text);
create function pg_temp.t(fn text, t1 text, v1 text, t2 text, v2 text) returns text language plpgsql as $f$
declare r text;
begin
  execute format('select (%s(%L::%s, %L::%s))::text', fn, v1, t1, v2, t2) into r;
  return coalesce(r, 'NULL');
exception when others then
  return 'ERROR ' || sqlstate || ' ' || sqlerrm;
end $f$;
copy c (fn, t1, v1, t2, v2) from stdin;
SQL
	cat
	printf '\\.\n'
	echo "copy (select fn, t1, v1, t2, v2, pg_temp.t(fn, t1, v1, t2, v2) from c order by n) to stdout;"
} | $psql_cmd -X -q
