package expr

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// TestFormattingGolden replays calls of to_char, to_number, to_timestamp
// and to_date whose results PostgreSQL 15 printed (TimeZone UTC). Each
// line of testdata/formatting/*.tsv is, in COPY text format,
//
//	function  type1  value1  type2  value2  result
//
// the result being the value as text, NULL, or ERROR sqlstate message.
// testdata/formatting/golden.sh recomputes the sixth column from the
// first five with a PostgreSQL server; the *_random files hold random
// templates (and, for to_timestamp, inputs to_char wrote with them).
func TestFormattingGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/formatting/*.tsv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { replayGolden(t, f) })
	}
}

func replayGolden(t *testing.T, path string) {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	failures := 0
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 6 {
			t.Fatalf("%s:%d: %d columns", path, line, len(cols))
		}
		for i := range cols {
			cols[i] = copyUnescape(cols[i])
		}
		got := goldenCall(cols[0], cols[1], cols[2], cols[3], cols[4])
		if got != cols[5] {
			if failures++; failures <= 50 {
				t.Errorf("%s:%d: %s(%q::%s, %q::%s)\n got %q\nwant %q", path, line, cols[0], cols[2], cols[1], cols[4], cols[3], got, cols[5])
			}
		}
	}
	if failures > 50 {
		t.Errorf("%d failures in all", failures)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// goldenCall evaluates fn('v1'::t1, 'v2'::t2) and renders the outcome
// as the golden files do.
func goldenCall(fn, t1, v1, t2, v2 string) string {
	var args []Expr
	for _, a := range [][2]string{{t1, v1}, {t2, v2}} {
		typ := typeNamed(a[0])
		v, err := types.Parse(a[1], typ)
		if err != nil {
			return goldenError(err)
		}
		args = append(args, NewConst(v, typ))
	}
	e, err := Func(fn, args)
	if err != nil {
		return goldenError(err)
	}
	v, err := e.Eval(nil)
	switch {
	case err != nil:
		return goldenError(err)
	case v == nil:
		return "NULL"
	}
	return types.Format(v, e.Type())
}

func goldenError(err error) string {
	pe := pgerr.As(err)
	return "ERROR " + pe.Code + " " + pe.Message
}

// copyUnescape reads a COPY text field: \\, \t, \n and \r.
func copyUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
