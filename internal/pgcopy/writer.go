package pgcopy

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/streamdb/streamdb/internal/types"
)

// Writer writes COPY TO output: each call that writes makes exactly one
// Write on the underlying writer (the protocol sends one CopyData message
// per row).
type Writer struct {
	w          io.Writer
	opts       Options
	names      []string
	types      []types.Type
	forceQuote []bool
	enc        Encoder
	buf, val   []byte
}

// NewWriter returns a writer of rows of the named columns of types ts.
// forceQuote (CSV) marks the columns whose values are always quoted; nil
// for none.
func NewWriter(w io.Writer, opts Options, names []string, ts []types.Type, forceQuote []bool) *Writer {
	return &Writer{w: w, opts: opts, names: names, types: ts, forceQuote: forceQuote}
}

// Begin writes what comes before the rows: the binary signature and
// header, or with HEADER the line of column names.
func (w *Writer) Begin() error {
	buf := w.buf[:0]
	switch {
	case w.opts.Format == Binary:
		buf = append(buf, binarySignature...)
		buf = binary.BigEndian.AppendUint32(buf, 0) // flags
		buf = binary.BigEndian.AppendUint32(buf, 0) // header extension length
	case w.opts.Header:
		for i, name := range w.names {
			if i > 0 {
				buf = append(buf, w.opts.Delimiter)
			}
			if w.opts.Format == CSV {
				buf = w.appendCSV(buf, []byte(name), false)
			} else {
				buf = w.appendTextEscaped(buf, []byte(name))
			}
		}
		buf = append(buf, '\n')
	default:
		return nil
	}
	w.buf = buf
	_, err := w.w.Write(buf)
	return err
}

// WriteRow writes one row.
func (w *Writer) WriteRow(row []types.Datum) error {
	if len(row) != len(w.types) {
		return fmt.Errorf("pgcopy: row has %d values for %d columns", len(row), len(w.types))
	}
	var err error
	if w.opts.Format == Binary {
		err = w.binaryRow(row)
	} else {
		w.textRow(row)
	}
	if err != nil {
		return err
	}
	_, err = w.w.Write(w.buf)
	return err
}

// End writes what follows the rows: the binary trailer.
func (w *Writer) End() error {
	if w.opts.Format != Binary {
		return nil
	}
	w.buf = binary.BigEndian.AppendUint16(w.buf[:0], 0xFFFF)
	_, err := w.w.Write(w.buf)
	return err
}

func (w *Writer) textRow(row []types.Datum) {
	buf := w.buf[:0]
	for i, d := range row {
		if i > 0 {
			buf = append(buf, w.opts.Delimiter)
		}
		if d == nil {
			buf = append(buf, w.opts.Null...)
			continue
		}
		if t := w.types[i]; !w.opts.Zone.IsUTC() && (t.ID == types.IDTimestampTZ || t.ID == types.IDArray) {
			w.val = append(w.val[:0], types.FormatIn(d, t, w.opts.Zone)...)
		} else {
			w.val = AppendText(w.val[:0], d, t)
		}
		if w.opts.Format == CSV {
			buf = w.appendCSV(buf, w.val, w.forceQuote != nil && w.forceQuote[i])
		} else {
			buf = w.appendTextEscaped(buf, w.val)
		}
	}
	w.buf = append(buf, '\n')
}

// appendTextEscaped appends v escaped for the text format: backslash,
// the delimiter and the control characters that have an escape.
func (w *Writer) appendTextEscaped(buf, v []byte) []byte {
	for _, c := range v {
		switch c {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\v':
			buf = append(buf, '\\', 'v')
		default:
			if c == w.opts.Delimiter {
				buf = append(buf, '\\')
			}
			buf = append(buf, c)
		}
	}
	return buf
}

// appendCSV appends v as a CSV value, quoted when forced or needed: it
// holds the delimiter, the quote, a line end, equals the null string, or
// is \. alone (which would read back as the end marker).
func (w *Writer) appendCSV(buf, v []byte, force bool) []byte {
	q, e := w.opts.Quote, w.opts.Escape
	quote := force || string(v) == w.opts.Null || (len(w.types) == 1 && string(v) == `\.`)
	for i := 0; i < len(v) && !quote; i++ {
		c := v[i]
		quote = c == w.opts.Delimiter || c == q || c == '\n' || c == '\r'
	}
	if !quote {
		return append(buf, v...)
	}
	buf = append(buf, q)
	for _, c := range v {
		if c == q || c == e {
			buf = append(buf, e)
		}
		buf = append(buf, c)
	}
	return append(buf, q)
}

func (w *Writer) binaryRow(row []types.Datum) error {
	buf := binary.BigEndian.AppendUint16(w.buf[:0], uint16(len(row)))
	for i, d := range row {
		if d == nil {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = w.enc.AppendBinary(buf, d, w.types[i]); err != nil {
			return err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	w.buf = buf
	return nil
}
