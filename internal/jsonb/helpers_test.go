package jsonb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// result is an expected outcome: a value's text, SQL NULL, or an error.
type result struct {
	null    bool
	out     string
	hashLen int // out is then the SHA-256 (hex) of the text, for long texts
	err     *pgerr.Error
}

func ok(s string) result { return result{out: s} }

func okHash(n int, h string) result { return result{out: h, hashLen: n} }

func null() result { return result{null: true} }

func perr(code, msg, detail, hint, where string) result {
	return result{err: &pgerr.Error{Code: code, Message: msg, Detail: detail, Hint: hint, Where: where}}
}

func (r result) String() string {
	switch {
	case r.err != nil:
		return fmt.Sprintf("error %s %q detail=%q hint=%q where=%q", r.err.Code, r.err.Message, r.err.Detail, r.err.Hint, r.err.Where)
	case r.null:
		return "NULL"
	case r.hashLen > 0:
		return fmt.Sprintf("text of %d bytes with SHA-256 %s", r.hashLen, r.out)
	}
	return fmt.Sprintf("%q", r.out)
}

// got builds a result from what a function returned.
func got(s string, valid bool, err error) result {
	if err != nil {
		var pe *pgerr.Error
		if !errors.As(err, &pe) {
			return result{err: &pgerr.Error{Code: "not a pgerr", Message: err.Error()}}
		}
		return result{err: pe}
	}
	if !valid {
		return null()
	}
	return result{out: s}
}

// matches reports whether g (from got) is the expected r.
func (r result) matches(g result) bool {
	switch {
	case r.err != nil || g.err != nil:
		if r.err == nil || g.err == nil {
			return false
		}
		a, b := r.err, g.err
		return a.Code == b.Code && a.Message == b.Message && a.Detail == b.Detail && a.Hint == b.Hint && a.Where == b.Where
	case r.null || g.null:
		return r.null == g.null
	case r.hashLen > 0:
		h := sha256.Sum256([]byte(g.out))
		return len(g.out) == r.hashLen && hex.EncodeToString(h[:]) == r.out
	}
	return r.out == g.out
}

func check(t *testing.T, what string, want result, s string, ok bool, err error) {
	t.Helper()
	g := got(s, ok, err)
	if !want.matches(g) {
		t.Errorf("%s:\n got %v\nwant %v", what, g, want)
	}
}

// mustParse parses a test input that PostgreSQL accepts.
func mustParse(t testing.TB, s string) Value {
	t.Helper()
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return v
}

type parseCase struct {
	in          string
	jsonb, json result
}

type getCase struct {
	in       string
	key      string
	idx      int
	path     []string
	want     result
	wantText result
}

type containsCase struct {
	a, b string
	want bool
}

type existsCase struct {
	in       string
	keys     []string
	any, all bool
}

type binCase struct {
	a, b string
	want result
}

type editCase struct {
	in    string
	keys  []string
	nulls []bool
	idx   int
	nv    string
	flag  bool
	want  result
}

type funcCase struct {
	fn, in string
	want   result
}

type orderCase struct {
	in   string
	rank int
}

type numCase struct {
	in   string
	want result
}

type opCase struct {
	op, a, b string
	path     []string
	nulls    []bool
	flag     bool
	want     result
}
