package slt

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Location is a line of a test file. Lines are 1-based.
type Location struct {
	File string
	Line int
}

func (l Location) String() string { return fmt.Sprintf("%s:%d", l.File, l.Line) }

// pos is where a record comes from: its own line plus the chain of include
// lines that brought its file in, innermost first.
type pos struct {
	Location
	includedFrom []Location
}

// record is one executable unit of a parsed file.
type record interface {
	position() pos
}

// SortMode says how query results are ordered before comparison.
type SortMode int

const (
	// NoSort compares rows in the order the database returned them.
	NoSort SortMode = iota
	// RowSort sorts rows by their rendered text.
	RowSort
	// ValueSort sorts every value on its own, ignoring rows.
	ValueSort
)

var sortModeNames = map[string]SortMode{"nosort": NoSort, "rowsort": RowSort, "valuesort": ValueSort}

func (m SortMode) String() string {
	for name, v := range sortModeNames {
		if v == m {
			return name
		}
	}
	return fmt.Sprintf("SortMode(%d)", int(m))
}

// condition is a skipif/onlyif line attached to the record after it.
type condition struct {
	only  bool // onlyif when set, skipif otherwise
	label string
}

// skips reports whether the condition skips a record under labels.
func (c condition) skips(labels map[string]bool) bool { return c.only != labels[c.label] }

// retry is the `retry N backoff D` attribute of a record.
type retry struct {
	attempts int // retries after the first attempt
	backoff  time.Duration
}

// errorExpect is what `statement error` / `query error` expect.
type errorExpect struct {
	re    *regexp.Regexp // inline regex; nil means none
	exact string         // multi-line message under ----
	multi bool           // exact is set
}

// matches reports whether the error message msg is the expected one.
func (e errorExpect) matches(msg string) bool {
	switch {
	case e.multi:
		return strings.TrimSpace(e.exact) == strings.TrimSpace(msg)
	case e.re != nil:
		return e.re.MatchString(msg)
	default:
		return true
	}
}

func (e errorExpect) String() string {
	switch {
	case e.multi:
		return "(multiline) " + strings.TrimSpace(e.exact)
	case e.re != nil:
		return "(regex) " + e.re.String()
	default:
		return "(any)"
	}
}

// common holds what statements and queries share.
type common struct {
	pos
	sql        string
	conditions []condition
	connection string // "" is the default connection
	retry      retry
}

func (c *common) position() pos { return c.pos }

// statementRecord is `statement ok|error|count`.
type statementRecord struct {
	common
	expectErr *errorExpect // nil: must succeed
	count     int64        // with hasCount: rows affected
	hasCount  bool
}

// queryRecord is `query ...`.
type queryRecord struct {
	common
	types     string
	sortMode  SortMode
	hasSort   bool // sortMode was given on the header
	label     string
	expectErr *errorExpect // nil: must return rows
	rows      []string     // expected lines under ----
}

// haltRecord stops the rest of the file.
type haltRecord struct {
	pos
	conditions []condition
}

func (r *haltRecord) position() pos { return r.pos }

// sleepRecord pauses the file.
type sleepRecord struct {
	pos
	d time.Duration
}

func (r *sleepRecord) position() pos { return r.pos }

// sortModeRecord is `control sortmode`.
type sortModeRecord struct {
	pos
	mode SortMode
}

func (r *sortModeRecord) position() pos { return r.pos }

// substitutionRecord is `control substitution on|off`.
type substitutionRecord struct {
	pos
	on bool
}

func (r *substitutionRecord) position() pos { return r.pos }

// includeRecord is `include GLOB`; the loader replaces it by the records of
// the matching files, so the runner never sees one.
type includeRecord struct {
	pos
	pattern string
}

func (r *includeRecord) position() pos { return r.pos }

// systemRecord is `system ok`, which streamdb does not run: it fails.
type systemRecord struct {
	common
}
