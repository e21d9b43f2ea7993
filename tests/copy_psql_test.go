package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCopyPsql drives COPY through real psql: \copy from and to files
// (psql runs COPY ... FROM STDIN / TO STDOUT and moves the file), COPY
// with data inline in a script, psql -c "COPY ... TO STDOUT", and the
// errors psql prints with their CONTEXT line. The expected output is what
// psql prints against PostgreSQL 15 for the same script, but for the view
// (which PostgreSQL does not keep up to date) and the line of the last
// error (PostgreSQL checks the relation kind only once in copy mode).
func TestCopyPsql(t *testing.T) {
	requirePsql(t)
	db := openMem(t)
	port := startServer(t, db)
	dir := t.TempDir()
	in := "id,name,amount\n1,alice,1.50\n2,\"bob, jr\",\n3,\"multi\nline\",2.25\n"
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(`CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2));
CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n, sum(amount) AS total FROM t;
\copy t from 'DIR/in.csv' with csv header
\copy t to 'DIR/out.csv' csv
\copy (SELECT id, name FROM t ORDER BY id) to 'DIR/out.txt'
COPY t FROM STDIN;
4	dave	3
5	x	abc
\.
COPY t FROM STDIN;
4	dave	3
1	dup	1
\.
COPY t FROM STDIN (FORMAT csv);
4,dave,3
"6,x,1
\.
COPY t FROM STDIN;
4	tab\there	3
5	\N	\N
\.
SELECT * FROM mv;
COPY (SELECT * FROM t ORDER BY id) TO STDOUT;
COPY (SELECT * FROM t ORDER BY id) TO STDOUT WITH CSV HEADER FORCE QUOTE *;
COPY mv FROM STDIN;
`, "DIR", dir)
	want := `CREATE TABLE
CREATE MATERIALIZED VIEW
COPY 3
COPY 3
COPY 3
psql:<stdin>:9: ERROR:  invalid input syntax for type numeric: "abc"
CONTEXT:  COPY t, line 2, column amount: "abc"
psql:<stdin>:13: ERROR:  duplicate key value violates unique constraint "t_pkey"
DETAIL:  Key (id)=(1) already exists.
CONTEXT:  COPY t, line 2
psql:<stdin>:17: ERROR:  unterminated CSV quoted field
CONTEXT:  COPY t, line 4: ""6,x,1
\.
"
COPY 2
 n | total 
---+-------
 5 |  6.75
(1 row)

1	alice	1.50
2	bob, jr	\N
3	multi\nline	2.25
4	tab\there	3.00
5	\N	\N
id,name,amount
"1","alice","1.50"
"2","bob, jr",
"3","multi
line","2.25"
"4","tab	here","3.00"
"5",,
psql:<stdin>:25: ERROR:  cannot copy to materialized view "mv"
`
	if got := runPsql(t, port, script); got != want {
		t.Fatalf("psql output:\n%s\nwant:\n%s", got, want)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// \copy to a file: the rows in storage order, CSV as PostgreSQL writes it.
	records := strings.SplitAfter(strings.Replace(string(out), "\"multi\nline\"", "\"multi line\"", 1), "\n")
	sort.Strings(records)
	if got, want := strings.Join(records, ""), "1,alice,1.50\n2,\"bob, jr\",\n3,\"multi line\",2.25\n"; got != want {
		t.Errorf("out.csv:\n got %q\nwant %q", got, want)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(out) != "1\talice\n2\tbob, jr\n3\tmulti\\nline\n" {
		t.Errorf("out.txt: %q", out)
	}

	// psql -c: COPY TO STDOUT goes to psql's standard output.
	cmd := exec.Command(psqlPath, "-X", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "tester", "-d", "dev",
		"-c", "COPY (SELECT id, amount FROM t WHERE id < 3 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)")
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=5")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("psql -c: %v", err)
	}
	if got := stdout.String(); got != "id,amount\n1,1.50\n2,\n" {
		t.Errorf("psql -c output %q", got)
	}
}
