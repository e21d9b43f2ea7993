// End-to-end check of streamdb with pgjdbc (run by tests/clients_test.go,
// which compiles it with javac against /usr/share/java/postgresql.jar).
//
// Usage: java -cp postgresql.jar:. PgJdbcClient jdbc:postgresql://host:port/db
//
// Creates a table with a column of every type streamdb supports, inserts
// rows with parameters (also as a batch), reads every value back (through
// server-prepared statements once pgjdbc's prepareThreshold is reached, which
// switches it to binary results), pages through a result with setFetchSize
// and autocommit off (a named portal executed with a row limit across Syncs),
// creates a materialized view and reads it, and checks the SQLSTATE of
// errors. Exits non-zero on the first difference.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;

public class PgJdbcClient {
    static final String DDL = "CREATE TABLE alltypes (\n"
        + "  id int PRIMARY KEY,\n"
        + "  c_smallint smallint,\n"
        + "  c_int integer,\n"
        + "  c_bigint bigint,\n"
        + "  c_real real,\n"
        + "  c_double double precision,\n"
        + "  c_numeric numeric(12,3),\n"
        + "  c_text text,\n"
        + "  c_varchar varchar(20),\n"
        + "  c_bool boolean,\n"
        + "  c_date date,\n"
        + "  c_timestamp timestamp,\n"
        + "  c_timestamptz timestamptz,\n"
        + "  c_interval interval)";

    static final String COLUMNS = "id, c_smallint, c_int, c_bigint, c_real, c_double, c_numeric, c_text, "
        + "c_varchar, c_bool, c_date, c_timestamp, c_timestamptz, c_interval";

    static final String TEXT = "it's \u2603 \"quoted\"\nline";
    static final LocalDate DATE = LocalDate.of(2024, 2, 29);
    static final LocalDateTime TS = LocalDateTime.of(2024, 1, 2, 3, 4, 5, 123456000);
    static final OffsetDateTime TSTZ = OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 500000000, ZoneOffset.UTC);

    static void check(Object got, Object want, String what) {
        if (!Objects.equals(got, want)) {
            throw new AssertionError(what + ": got " + got + ", want " + want);
        }
    }

    static void expectState(Connection conn, String state, String sql) {
        try (Statement st = conn.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            check(e.getSQLState(), state, "SQLSTATE of " + sql + " (" + e.getMessage() + ")");
            return;
        }
        throw new AssertionError(sql + " did not fail");
    }

    static void insertRow1(PreparedStatement ps) throws SQLException {
        ps.setInt(1, 1);
        ps.setShort(2, (short) -32768);
        ps.setInt(3, Integer.MAX_VALUE);
        ps.setLong(4, Long.MAX_VALUE);
        ps.setFloat(5, 1.5f);
        ps.setDouble(6, 2.718281828459045);
        ps.setBigDecimal(7, new BigDecimal("12345.678"));
        ps.setString(8, TEXT);
        ps.setString(9, "vc");
        ps.setBoolean(10, true);
        ps.setObject(11, DATE);
        ps.setObject(12, TS);
        ps.setObject(13, TSTZ);
        // pgjdbc looks the interval type up in pg_catalog.pg_type first.
        ps.setObject(14, new org.postgresql.util.PGInterval(0, 1, 2, 3, 4, 5));
    }

    static void checkRow1(ResultSet rs, String what) throws SQLException {
        check(rs.getInt(1), 1, what + " id");
        check(rs.getShort(2), (short) -32768, what + " c_smallint");
        check(rs.getInt(3), Integer.MAX_VALUE, what + " c_int");
        check(rs.getLong(4), Long.MAX_VALUE, what + " c_bigint");
        check(rs.getFloat(5), 1.5f, what + " c_real");
        check(rs.getDouble(6), 2.718281828459045, what + " c_double");
        check(rs.getBigDecimal(7), new BigDecimal("12345.678"), what + " c_numeric");
        check(rs.getString(8), TEXT, what + " c_text");
        check(rs.getString(9), "vc", what + " c_varchar");
        check(rs.getBoolean(10), true, what + " c_bool");
        check(rs.getObject(11, LocalDate.class), DATE, what + " c_date");
        check(rs.getObject(12, LocalDateTime.class), TS, what + " c_timestamp");
        check(rs.getObject(13, OffsetDateTime.class), TSTZ, what + " c_timestamptz");
        check(rs.getString(14), "1 mon 2 days 03:04:05", what + " c_interval");
        check(rs.getObject(14), new org.postgresql.util.PGInterval(0, 1, 2, 3, 4, 5), what + " c_interval as PGInterval");
        // Type names come from pg_catalog.pg_type too.
        check(rs.getMetaData().getColumnTypeName(14), "interval", what + " interval type name");
        check(rs.getMetaData().getColumnTypeName(7), "numeric", what + " numeric type name");
    }

    public static void main(String[] args) throws Exception {
        Properties props = new Properties();
        props.setProperty("user", System.getenv().getOrDefault("PGUSER", "tester"));
        // PGSSLMODE and PGSSLROOTCERT as libpq reads them (tests/clients_test.go sets them).
        props.setProperty("sslmode", System.getenv().getOrDefault("PGSSLMODE", "disable"));
        String rootCert = System.getenv().getOrDefault("PGSSLROOTCERT", "");
        if (!rootCert.isEmpty()) {
            props.setProperty("sslrootcert", rootCert);
        }
        props.setProperty("connectTimeout", "10");
        try (Connection conn = DriverManager.getConnection(args[0], props)) {
            run(conn);
        }
        System.out.println("pgjdbc ok");
    }

    static void run(Connection conn) throws Exception {
        try (Statement st = conn.createStatement()) {
            st.execute(DDL);
        }
        String insert = "INSERT INTO alltypes (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        try (PreparedStatement ps = conn.prepareStatement(insert)) {
            insertRow1(ps);
            check(ps.executeUpdate(), 1, "INSERT row 1");
            ps.setInt(1, 2);
            for (int i = 2; i <= 14; i++) {
                ps.setNull(i, Types.NULL);
            }
            check(ps.executeUpdate(), 1, "INSERT row 2");
        }
        // A batch of rows 100..149 (only id and c_int).
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO alltypes (id, c_int) VALUES (?, ?)")) {
            for (int i = 100; i < 150; i++) {
                ps.setInt(1, i);
                ps.setInt(2, i * 2);
                ps.addBatch();
            }
            int total = 0;
            for (int n : ps.executeBatch()) {
                total += n;
            }
            check(total, 50, "batch insert count");
        }

        // The same statement run past prepareThreshold (5) is prepared on
        // the server and then reads results in binary.
        String select = "SELECT " + COLUMNS + " FROM alltypes WHERE id = ?";
        try (PreparedStatement ps = conn.prepareStatement(select)) {
            for (int i = 0; i < 8; i++) {
                ps.setInt(1, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    check(rs.next(), true, "row 1 present");
                    checkRow1(rs, "row 1 (execution " + i + ")");
                    check(rs.next(), false, "one row");
                }
                ps.setInt(1, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    check(rs.next(), true, "row 2 present");
                    check(rs.getInt(1), 2, "row 2 id");
                    for (int c = 2; c <= 14; c++) {
                        check(rs.getObject(c), null, "row 2 column " + c);
                    }
                }
            }
        }
        String where = "SELECT count(*) FROM alltypes WHERE c_smallint = ? AND c_int = ? AND c_bigint = ? "
            + "AND c_real = ? AND c_double = ? AND c_numeric = ? AND c_text = ? AND c_varchar = ? AND c_bool = ? "
            + "AND c_date = ? AND c_timestamp = ? AND c_timestamptz = ? AND c_interval = ?";
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM alltypes WHERE id = ? AND " + where.substring(where.indexOf("WHERE") + 6))) {
            for (int i = 0; i < 7; i++) {
                insertRow1(ps);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    check(rs.getLong(1), 1L, "count with parameters (execution " + i + ")");
                }
            }
        }

        // setFetchSize with autocommit off: a named portal paged 7 rows at a
        // time across Syncs.
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("SELECT id, c_int FROM alltypes WHERE id >= ? ORDER BY id")) {
            ps.setFetchSize(7);
            ps.setInt(1, 100);
            List<Integer> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    check(rs.getInt(2), rs.getInt(1) * 2, "c_int of row " + rs.getInt(1));
                    ids.add(rs.getInt(1));
                    // Another statement between fetches must not disturb the portal.
                    if (ids.size() == 10) {
                        try (Statement other = conn.createStatement(); ResultSet o = other.executeQuery("SELECT 42")) {
                            o.next();
                            check(o.getInt(1), 42, "statement between fetches");
                        }
                    }
                }
            }
            check(ids.size(), 50, "rows read with setFetchSize");
            for (int i = 0; i < ids.size(); i++) {
                check(ids.get(i), 100 + i, "row order with setFetchSize");
            }
        }
        conn.commit();
        conn.setAutoCommit(true);

        try (Statement st = conn.createStatement()) {
            st.execute("CREATE MATERIALIZED VIEW alltypes_summary AS SELECT c_bool, count(*) AS n, "
                + "sum(c_bigint) AS total, max(c_date) AS last_day FROM alltypes GROUP BY c_bool");
            checkView(st, "true|1|9223372036854775807|2024-02-29", "null|51|null|null");
            st.executeUpdate("UPDATE alltypes SET c_bigint = 10 WHERE id = 1");
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO alltypes (id, c_bool, c_bigint, c_date) VALUES (?, ?, ?, ?)")) {
                ps.setInt(1, 3);
                ps.setBoolean(2, true);
                ps.setLong(3, -5);
                ps.setObject(4, LocalDate.of(2025, 3, 1));
                ps.executeUpdate();
            }
            checkView(st, "true|2|5|2025-03-01", "null|51|null|null");
        }

        expectState(conn, "23505", "INSERT INTO alltypes (id) VALUES (1)");
        expectState(conn, "42P01", "SELECT * FROM nope");
        try (PreparedStatement ps = conn.prepareStatement("SELECT * FROM nope WHERE x = ?")) {
            ps.setInt(1, 1);
            ps.executeQuery();
            throw new AssertionError("prepared SELECT from nope did not fail");
        } catch (SQLException e) {
            check(e.getSQLState(), "42P01", "SQLSTATE of prepared SELECT from nope");
        }
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM alltypes")) {
            rs.next();
            check(rs.getLong(1), 53L, "count after errors");
        }

        // setFetchSize outside autocommit: the driver executes the portal
        // with a row limit and resumes it (PortalSuspended) 100 rows at a
        // time.
        try (Statement st = conn.createStatement()) {
            st.execute("CREATE TABLE many (id int PRIMARY KEY, v text)");
            st.execute("INSERT INTO many SELECT g, 'v' || g FROM generate_series(1, 2500) AS g");
        }
        conn.setAutoCommit(false);
        try (PreparedStatement ps = conn.prepareStatement("SELECT id, v FROM many WHERE id > ? ORDER BY id")) {
            ps.setFetchSize(100);
            ps.setInt(1, 500);
            long n = 0, last = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    n++;
                    last = rs.getLong(1);
                    check(rs.getString(2), "v" + last, "row " + last + " with a fetch size");
                }
            }
            check(n, 2000L, "rows read with a fetch size");
            check(last, 2500L, "last row read with a fetch size");
        }
        conn.commit();
        conn.setAutoCommit(true);
    }

    static void checkView(Statement st, String... want) throws SQLException {
        List<String> got = new ArrayList<>();
        try (ResultSet rs = st.executeQuery("SELECT c_bool, n, total, last_day FROM alltypes_summary ORDER BY c_bool")) {
            while (rs.next()) {
                got.add(rs.getObject(1) + "|" + rs.getLong(2) + "|" + rs.getBigDecimal(3) + "|" + rs.getString(4));
            }
        }
        check(got, List.of(want), "view rows");
    }
}
