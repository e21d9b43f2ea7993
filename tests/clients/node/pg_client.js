// End-to-end check of streamdb with node-postgres (run by
// tests/clients_test.go). Connects with the libpq environment (PGHOST,
// PGPORT, PGUSER, PGDATABASE), creates a table with a column of every type
// streamdb supports, inserts rows with parameters, reads every value back
// (unnamed and named prepared statements, array row mode), creates a
// materialized view and reads it, and checks the SQLSTATE of errors. Exits
// non-zero on the first difference.
'use strict';

const assert = require('node:assert/strict');
const { Client, types } = require('pg');

// Keep dates, timestamps and big numbers as the server's text, so the
// comparison does not depend on the local time zone.
for (const oid of [1082, 1114, 1184, 20, 1700]) {
  types.setTypeParser(oid, (v) => v);
}

const DDL = `CREATE TABLE alltypes (
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
  c_interval interval)`;

const COLUMNS = 'id, c_smallint, c_int, c_bigint, c_real, c_double, c_numeric, c_text, ' +
  'c_varchar, c_bool, c_date, c_timestamp, c_timestamptz, c_interval';

const TEXT = 'it\'s \u2603 "quoted"\nline';
const ROW1 = [1, -32768, 2147483647, '9223372036854775807', 1.5, 2.718281828459045, '12345.678', TEXT, 'vc', true,
  '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5+00', '1 mon 2 days 03:04:05'];

async function expectCode(client, code, query, values) {
  try {
    await client.query(query, values);
  } catch (e) {
    assert.equal(e.code, code, `SQLSTATE of ${query}: ${e.message}`);
    return;
  }
  assert.fail(`${query} did not fail`);
}

function plain(row) {
  // node-postgres parses interval into an object; compare its fields.
  const out = { ...row };
  if (out.c_interval && typeof out.c_interval === 'object') {
    out.c_interval = { ...out.c_interval };
  }
  return out;
}

async function main() {
  const client = new Client();
  await client.connect();
  try {
    await client.query(DDL);
    const params = ROW1.map((_, i) => `$${i + 1}`).join(', ');
    const insert = `INSERT INTO alltypes (${COLUMNS}) VALUES (${params})`;
    const res = await client.query(insert, ROW1);
    assert.equal(res.rowCount, 1);
    assert.equal(res.command, 'INSERT');
    await client.query(insert, [2, ...Array(13).fill(null)]);

    const select = `SELECT ${COLUMNS} FROM alltypes WHERE id = $1`;
    const r1 = await client.query(select, [1]);
    assert.deepEqual(r1.fields.map((f) => f.dataTypeID), [23, 21, 23, 20, 700, 701, 1700, 25, 1043, 16, 1082, 1114, 1184, 1186]);
    const got = plain(r1.rows[0]);
    assert.deepEqual(got.c_interval, { months: 1, days: 2, hours: 3, minutes: 4, seconds: 5 });
    delete got.c_interval;
    assert.deepEqual(got, {
      id: 1, c_smallint: -32768, c_int: 2147483647, c_bigint: '9223372036854775807', c_real: 1.5,
      c_double: 2.718281828459045, c_numeric: '12345.678', c_text: TEXT, c_varchar: 'vc', c_bool: true,
      c_date: '2024-02-29', c_timestamp: '2024-01-02 03:04:05.123456', c_timestamptz: '2024-01-02 03:04:05.5+00',
    });
    // A named statement is parsed once and executed many times.
    for (const id of [2, 2, 2]) {
      const r2 = await client.query({ name: 'select_row', text: select, values: [id], rowMode: 'array' });
      assert.deepEqual(r2.rows, [[2, ...Array(13).fill(null)]]);
    }
    // Parameters compared with every type (sent as text, typed by the server).
    const where = 'SELECT count(*) AS n FROM alltypes WHERE c_smallint = $1 AND c_int = $2 AND c_bigint = $3 ' +
      'AND c_real = $4 AND c_double = $5 AND c_numeric = $6 AND c_text = $7 AND c_varchar = $8 AND c_bool = $9 ' +
      'AND c_date = $10 AND c_timestamp = $11 AND c_timestamptz = $12 AND c_interval = $13';
    assert.deepEqual((await client.query(where, ROW1.slice(1))).rows, [{ n: '1' }]);
    // The simple protocol (no parameters), several statements at once.
    const multi = await client.query('SELECT 1 AS a; SELECT \'x\' AS b');
    assert.deepEqual(multi.map((r) => r.rows), [[{ a: 1 }], [{ b: 'x' }]]);

    await client.query('CREATE MATERIALIZED VIEW alltypes_summary AS SELECT c_bool, count(*) AS n, ' +
      'sum(c_bigint) AS total, max(c_date) AS last_day FROM alltypes GROUP BY c_bool');
    const view = 'SELECT c_bool, n, total, last_day FROM alltypes_summary ORDER BY c_bool';
    assert.deepEqual((await client.query({ text: view, rowMode: 'array' })).rows,
      [[true, '1', '9223372036854775807', '2024-02-29'], [null, '1', null, null]]);
    await client.query(insert, [3, 1, 2, -5, 0.25, -1, '0.001', 'x', 'y', true, '2025-03-01',
      '2000-01-01 00:00:00', '2000-01-01 12:00:00+00', '-1 days']);
    await client.query('UPDATE alltypes SET c_bigint = $1 WHERE id = $2', [10, 1]);
    assert.deepEqual((await client.query({ text: view, rowMode: 'array' })).rows,
      [[true, '2', '5', '2025-03-01'], [null, '1', null, null]]);

    await expectCode(client, '23505', insert, [1, ...Array(13).fill(null)]);
    await expectCode(client, '42P01', 'SELECT * FROM nope WHERE x = $1', [1]);
    await expectCode(client, '42P01', 'SELECT * FROM nope');
    assert.deepEqual((await client.query('SELECT count(*) AS n FROM alltypes')).rows, [{ n: '3' }]);
  } finally {
    await client.end();
  }
  console.log('node-postgres ok');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
