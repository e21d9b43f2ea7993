package pgcopy

import (
	"bufio"
	"bytes"
	"io"
)

// textReader reads the text format: one row per line, columns separated
// by the delimiter, backslash escapes, the null string for NULL, and an
// optional end marker \. on a line of its own.
type textReader struct {
	lines
	opts   Options
	cols   []string
	rec    []byte // a record continued over a backslash-escaped newline
	out    []byte // values whose escapes were undone
	fields [][]byte
	starts []int // field start offsets in the record, + one past the end
}

func newTextReader(rd *bufio.Reader, opts Options, cols []string) *textReader {
	return &textReader{lines: lines{rd: rd}, opts: opts, cols: cols, fields: make([][]byte, len(cols))}
}

// Next implements Reader.
func (r *textReader) Next() ([][]byte, error) {
	for {
		line, err := r.record()
		if err != nil || line == nil {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
		r.line++
		r.text = line
		header := r.line == 1 && r.opts.Header
		if header && !r.opts.HeaderMatch {
			continue
		}
		if len(line) >= 2 && line[0] == '\\' && line[1] == '.' {
			if len(line) > 2 {
				return nil, badFormat("end-of-copy marker corrupt")
			}
			return nil, r.end()
		}
		n, err := r.split(line)
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

// record returns the next record without its line end: a line, joined
// with the following ones while it ends in a backslash-escaped newline.
func (r *textReader) record() ([]byte, error) {
	s, err := r.next()
	if err != nil || s == nil {
		return nil, err
	}
	if !escapedNewline(s) {
		return r.checkCR(trimEOL(s))
	}
	r.rec = append(r.rec[:0], s...)
	for escapedNewline(r.rec) {
		s, err := r.next()
		if err != nil {
			return nil, err
		}
		if s == nil {
			break
		}
		r.rec = append(r.rec, s...)
	}
	return r.checkCR(trimEOL(r.rec))
}

// escapedNewline reports whether s ends in a newline preceded by an odd
// number of backslashes: the newline is then data.
func escapedNewline(s []byte) bool {
	n := len(s)
	if n == 0 || s[n-1] != '\n' {
		return false
	}
	k := 0
	for i := n - 2; i >= 0 && s[i] == '\\'; i-- {
		k++
	}
	return k%2 == 1
}

// checkCR rejects a carriage return that is not part of the line end and
// not escaped.
func (r *textReader) checkCR(s []byte) ([]byte, error) {
	i := bytes.IndexByte(s, '\r')
	for i >= 0 {
		k := 0
		for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
			k++
		}
		if k%2 == 0 {
			r.line++
			r.text = s
			e := badFormat("literal carriage return found in data")
			e.Hint = `Use "\r" to represent carriage return.`
			return nil, e
		}
		next := bytes.IndexByte(s[i+1:], '\r')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return s, nil
}

// split cuts a record into fields, r.fields, undoing their escapes, and
// returns how many it has (only a count when it is not the column count).
func (r *textReader) split(line []byte) (int, error) {
	if err := checkUTF8(line); err != nil {
		return 0, err
	}
	if bytes.IndexByte(line, '\\') < 0 {
		return r.splitPlain(line), nil
	}
	return r.splitEscaped(line)
}

// splitEscaped is split for a record with backslashes.
func (r *textReader) splitEscaped(line []byte) (int, error) {
	r.starts = r.starts[:0]
	r.starts = append(r.starts, 0)
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case r.opts.Delimiter:
			r.starts = append(r.starts, i+1)
		}
	}
	r.starts = append(r.starts, len(line)+1)
	if n := len(r.starts) - 1; n != len(r.cols) {
		return n, nil
	}
	r.out = r.out[:0]
	for k := range r.fields {
		raw := line[r.starts[k] : r.starts[k+1]-1]
		switch {
		case string(raw) == r.opts.Null:
			r.fields[k] = nil
		case bytes.IndexByte(raw, '\\') < 0:
			r.fields[k] = raw
		default:
			start := len(r.out)
			r.out = unescape(r.out, raw)
			r.fields[k] = r.out[start:len(r.out):len(r.out)]
			if err := checkUTF8(r.fields[k]); err != nil {
				return 0, err
			}
		}
	}
	return len(r.fields), nil
}

// splitPlain is split for a record without a backslash (most records):
// no escape to skip or undo, so a field ends at the next delimiter, found
// with bytes.IndexByte, and is the record's own bytes.
func (r *textReader) splitPlain(line []byte) int {
	n := 0
	for {
		i := bytes.IndexByte(line, r.opts.Delimiter)
		f := line
		if i >= 0 {
			f = line[:i]
		}
		if n < len(r.fields) {
			r.fields[n] = f
			if string(f) == r.opts.Null {
				r.fields[n] = nil
			}
		}
		n++
		if i < 0 {
			return n
		}
		line = line[i+1:]
	}
}

// unescape appends raw with its backslash escapes undone: \b \f \n \r \t
// \v, octal \ooo, hex \xhh, and any other character taken literally.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 == len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		c = raw[i]
		switch {
		case c >= '0' && c <= '7':
			v := int(c - '0')
			for n := 1; n < 3 && i+1 < len(raw) && raw[i+1] >= '0' && raw[i+1] <= '7'; n++ {
				i++
				v = v*8 + int(raw[i]-'0')
			}
			dst = append(dst, byte(v))
		case c == 'x' && i+1 < len(raw) && hexVal(raw[i+1]) >= 0:
			i++
			v := hexVal(raw[i])
			if i+1 < len(raw) && hexVal(raw[i+1]) >= 0 {
				i++
				v = v*16 + hexVal(raw[i])
			}
			dst = append(dst, byte(v))
		default:
			dst = append(dst, unescapeChar(c))
		}
	}
	return dst
}

func unescapeChar(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	return c
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
