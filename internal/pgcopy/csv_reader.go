package pgcopy

import (
	"bufio"
	"io"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// csvReader reads the CSV format: values separated by the delimiter,
// optionally quoted (a quoted value may hold delimiters, quotes written
// as escape+quote, and line ends: a record may span several lines). An
// unquoted value equal to the null string is NULL.
type csvReader struct {
	lines
	opts Options
	cols []string
	// forceNotNull / forceNull per column (nil: none).
	forceNotNull, forceNull []bool
	rec                     []byte // a record spanning lines, assembled
	// quotedLines counts the line ends within quotes of the last record:
	// PostgreSQL counts them as lines (a record's line is its last one).
	quotedLines int64
	out         []byte
	fields      [][]byte
}

func newCSVReader(rd *bufio.Reader, opts Options, cols []string) *csvReader {
	r := &csvReader{lines: lines{rd: rd}, opts: opts, cols: cols, fields: make([][]byte, len(cols))}
	r.forceNotNull, _ = ColumnFlags("FORCE_NOT_NULL", opts.ForceNotNull, false, cols)
	r.forceNull, _ = ColumnFlags("FORCE_NULL", opts.ForceNull, false, cols)
	return r
}

// Next implements Reader.
func (r *csvReader) Next() ([][]byte, error) {
	for {
		start := r.line
		rec, err := r.record()
		if err != nil || rec == nil {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		r.line = start + 1 + r.quotedLines
		r.text = trimEOL(rec)
		if string(r.text) == `\.` {
			return nil, r.end()
		}
		if err := checkUTF8(rec); err != nil {
			return nil, err
		}
		header := r.line == 1 && r.opts.Header
		if header && !r.opts.HeaderMatch {
			continue
		}
		n, err := r.split(r.text)
		skip, err := checkRecord(r.fields, n, err, header, r.cols, r.opts.Null)
		if err != nil {
			return nil, err
		}
		if skip {
			continue
		}
		return r.fields, nil
	}
}

// record returns the next record with its line end: a line, joined with
// the following ones while a quoted value is open at its end.
func (r *csvReader) record() ([]byte, error) {
	s, err := r.next()
	if err != nil || s == nil {
		return nil, err
	}
	r.quotedLines = 0
	inQuote := r.scanQuotes(s, false)
	if !inQuote {
		return s, nil
	}
	r.rec = append(r.rec[:0], s...)
	for inQuote {
		if r.rec[len(r.rec)-1] == '\n' {
			r.quotedLines++
		}
		s, err := r.next()
		if err != nil {
			return nil, err
		}
		if s == nil {
			r.line += 1 + r.quotedLines
			r.text = r.rec
			return nil, badFormat("unterminated CSV quoted field")
		}
		r.rec = append(r.rec, s...)
		inQuote = r.scanQuotes(s, true)
	}
	return r.rec, nil
}

// scanQuotes reports whether a quoted value is open at the end of s,
// given whether one was open at its start.
func (r *csvReader) scanQuotes(s []byte, inQuote bool) bool {
	q, e := r.opts.Quote, r.opts.Escape
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !inQuote:
			inQuote = c == q
		case c == e && i+1 < len(s) && (s[i+1] == q || s[i+1] == e):
			i++
		case c == q:
			inQuote = false
		}
	}
	return inQuote
}

// split cuts a record (without its line end) into values, r.fields, and
// returns how many it holds (values past the columns are dropped).
func (r *csvReader) split(rec []byte) (int, error) {
	r.out = r.out[:0]
	n := 0
	for i := 0; ; i++ { // i++ skips the delimiter
		start, rawStart := len(r.out), i
		var quoted bool
		var err error
		if i, quoted, err = r.value(rec, i); err != nil {
			return 0, err
		}
		if n < len(r.fields) {
			r.fields[n] = r.field(n, rec[rawStart:i], r.out[start:len(r.out):len(r.out)], quoted)
		}
		n++
		if i >= len(rec) {
			return n, nil
		}
	}
}

// field decides whether a value is NULL.
func (r *csvReader) field(k int, raw, val []byte, quoted bool) []byte {
	isNull := string(raw) == r.opts.Null
	switch {
	case isNull && !quoted && (r.forceNotNull == nil || !r.forceNotNull[k]):
		return nil
	case quoted && r.forceNull != nil && r.forceNull[k] && string(val) == r.opts.Null:
		return nil
	}
	return val
}

// value appends the value starting at rec[i] to r.out and returns the
// index of the delimiter ending it (or len(rec)), and whether any part of
// it was quoted.
func (r *csvReader) value(rec []byte, i int) (int, bool, error) {
	q, e, d := r.opts.Quote, r.opts.Escape, r.opts.Delimiter
	quoted, inQuote := false, false
	for ; i < len(rec); i++ {
		c := rec[i]
		switch {
		case inQuote && c == e && i+1 < len(rec) && (rec[i+1] == q || rec[i+1] == e):
			i++
			r.out = append(r.out, rec[i])
		case inQuote && c == q:
			inQuote = false
		case inQuote:
			r.out = append(r.out, c)
		case c == d:
			return i, quoted, nil
		case c == q:
			inQuote, quoted = true, true
		case c == '\r' || c == '\n':
			e := badFormat("unquoted carriage return found in data")
			if c == '\n' {
				e = badFormat("unquoted newline found in data")
			}
			e.Hint = "Use quoted CSV field to represent carriage return."
			if c == '\n' {
				e.Hint = "Use quoted CSV field to represent newline."
			}
			return i, quoted, e
		default:
			r.out = append(r.out, c)
		}
	}
	if inQuote {
		return i, quoted, badFormat("unterminated CSV quoted field")
	}
	return i, quoted, nil
}

// matchHeader checks, under HEADER MATCH, that a header line of n values
// names the columns in order.
// checkRecord checks a record split into n fields (or failing to split,
// splitErr): a header line is matched against the columns and skipped;
// any other line must have one field per column.
func checkRecord(fields [][]byte, n int, splitErr error, header bool, cols []string, null string) (skip bool, err error) {
	switch {
	case splitErr != nil:
		return false, splitErr
	case header:
		return true, matchHeader(fields, n, cols, null)
	case n != len(cols):
		return false, fieldCountError(n, cols)
	}
	return false, nil
}

func matchHeader(fields [][]byte, n int, cols []string, null string) error {
	if n != len(cols) {
		return pgerr.New(pgerr.BadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", n, len(cols))
	}
	for i, f := range fields {
		if f == nil {
			return pgerr.New(pgerr.BadCopyFileFormat, "column name mismatch in header line field %d: got null value (%q), expected %q", i+1, null, cols[i])
		}
		if string(f) != cols[i] {
			return pgerr.New(pgerr.BadCopyFileFormat, "column name mismatch in header line field %d: got %q, expected %q", i+1, string(f), cols[i])
		}
	}
	return nil
}
