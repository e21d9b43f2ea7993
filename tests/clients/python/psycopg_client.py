"""End-to-end check of streamdb with psycopg 3 (run by tests/clients_test.go).

Connects with the libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE),
creates a table with a column of every type streamdb supports, inserts rows
with parameters (text and binary), reads every value back (text and binary
results, also through a server-side prepared statement), creates a
materialized view and reads it, and checks the SQLSTATE of errors. Exits
non-zero, with a traceback, on the first difference.
"""

import datetime as dt
import sys
from decimal import Decimal

import psycopg
from psycopg import errors

DDL = """CREATE TABLE alltypes (
  id int PRIMARY KEY,
  c_smallint smallint,
  c_int integer,
  c_bigint bigint,
  c_real real,
  c_double double precision,
  c_numeric numeric(12,3),
  c_text text,
  c_varchar varchar(20),
  c_bool boolean,
  c_date date,
  c_timestamp timestamp,
  c_timestamptz timestamptz,
  c_interval interval)"""

COLUMNS = ("id, c_smallint, c_int, c_bigint, c_real, c_double, c_numeric, c_text, "
           "c_varchar, c_bool, c_date, c_timestamp, c_timestamptz, c_interval")

UTC = dt.timezone.utc

ROW1 = (
    1,
    -32768,
    2147483647,
    9223372036854775807,
    1.5,
    2.718281828459045,
    Decimal("12345.678"),
    "it's \u2603 \"quoted\"\nline",
    "vc",
    True,
    dt.date(2024, 2, 29),
    dt.datetime(2024, 1, 2, 3, 4, 5, 123456),
    dt.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=UTC),
    dt.timedelta(days=2, hours=3, minutes=4, seconds=5),
)

ROW3 = (3, 1, 2, -5, 0.25, -1.0, Decimal("0.001"), "x", "y", True, dt.date(2025, 3, 1),
        dt.datetime(2000, 1, 1), dt.datetime(2000, 1, 1, 12, tzinfo=UTC), dt.timedelta(days=-1))


def check(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def expect_sqlstate(conn, code, query, params=None):
    try:
        conn.execute(query, params)
    except psycopg.Error as e:
        check(e.sqlstate, code, f"SQLSTATE of {query!r}")
        return e
    raise AssertionError(f"{query!r} did not fail")


def main():
    with psycopg.connect(autocommit=True) as conn:
        check(conn.info.parameter_status("server_version"), "15.0", "server_version")
        conn.execute(DDL)
        placeholders = ", ".join(["%s"] * 14)
        insert = f"INSERT INTO alltypes ({COLUMNS}) VALUES ({placeholders})"
        cur = conn.execute(insert, ROW1)
        check(cur.rowcount, 1, "rowcount of INSERT")
        conn.execute(insert, (2,) + (None,) * 13)
        # Binary parameters (%b) too.
        binsert = f"INSERT INTO alltypes ({COLUMNS}) VALUES ({', '.join(['%b'] * 14)})"
        conn.execute(binsert, ROW3)

        select = f"SELECT {COLUMNS} FROM alltypes WHERE id = %s"
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute(select, (1,))
                check(cur.fetchone(), ROW1, f"row 1 (binary={binary})")
                check([d.name for d in cur.description][:3], ["id", "c_smallint", "c_int"], "column names")
                cur.execute(select, (2,))
                check(cur.fetchone(), (2,) + (None,) * 13, f"row 2 (binary={binary})")
                cur.execute(select, (3,))
                check(cur.fetchone(), ROW3, f"row 3 (binary={binary})")

        # Parameters compared with every type, through a prepared statement
        # (psycopg prepares a query server-side from its 5th execution on).
        where = ("SELECT count(*) FROM alltypes WHERE c_smallint = %s AND c_int = %s AND c_bigint = %s "
                 "AND c_real = %s AND c_double = %s AND c_numeric = %s AND c_text = %s AND c_varchar = %s "
                 "AND c_bool = %s AND c_date = %s AND c_timestamp = %s AND c_timestamptz = %s AND c_interval = %s")
        for _ in range(7):
            check(conn.execute(where, ROW1[1:]).fetchone(), (1,), "count with parameters")
        check(conn.execute(where, ROW1[1:], prepare=True).fetchone(), (1,), "count with prepare=True")

        conn.execute("CREATE MATERIALIZED VIEW alltypes_summary AS SELECT c_bool, count(*) AS n, "
                      "sum(c_bigint) AS total, max(c_date) AS last_day FROM alltypes GROUP BY c_bool")
        view = "SELECT c_bool, n, total, last_day FROM alltypes_summary ORDER BY c_bool"
        check(conn.execute(view).fetchall(),
              [(True, 2, Decimal("9223372036854775802"), dt.date(2025, 3, 1)), (None, 1, None, None)], "view")
        conn.execute("UPDATE alltypes SET c_bigint = %s WHERE id = %s", (10, 1))
        check(conn.execute(view).fetchall(),
              [(True, 2, Decimal("5"), dt.date(2025, 3, 1)), (None, 1, None, None)], "view after UPDATE")

        e = expect_sqlstate(conn, "23505", insert, (1,) + (None,) * 13)
        if not isinstance(e, errors.UniqueViolation):
            raise AssertionError(f"duplicate key raised {type(e).__name__}, want UniqueViolation")
        e = expect_sqlstate(conn, "42P01", "SELECT * FROM nope WHERE x = %s", (1,))
        if not isinstance(e, errors.UndefinedTable):
            raise AssertionError(f"unknown table raised {type(e).__name__}, want UndefinedTable")
        check(conn.execute("SELECT count(*) FROM alltypes").fetchone(), (3,), "count after errors")

    # Without autocommit psycopg wraps statements in BEGIN ... COMMIT.
    with psycopg.connect() as conn:
        conn.execute("INSERT INTO alltypes (id, c_text) VALUES (%s, %s)", (4, "in a transaction"))
        conn.commit()
        check(conn.execute("SELECT c_text FROM alltypes WHERE id = %s", (4,)).fetchone(), ("in a transaction",), "row 4")
        conn.rollback()

        # A named (server-side) cursor: DECLARE ... CURSOR and FETCH
        # FORWARD itersize rows at a time, inside psycopg's transaction.
        conn.execute("CREATE TABLE many (id int PRIMARY KEY, v text)")
        conn.execute("INSERT INTO many SELECT g, 'v' || g FROM generate_series(1, 2500) AS g")
        conn.commit()
        with conn.cursor(name="many_cur") as cur:
            cur.itersize = 100
            cur.execute("SELECT id, v FROM many WHERE id > %s ORDER BY id", (500,))
            check(cur.fetchone(), (501, "v501"), "named cursor, first row")
            check(len(cur.fetchmany(300)), 300, "named cursor, fetchmany")
            rest = list(cur)
            check(len(rest), 1699, "named cursor, the rest")
            check(rest[-1], (2500, "v2500"), "named cursor, last row")
        conn.commit()
    print("psycopg", psycopg.__version__, "ok")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
