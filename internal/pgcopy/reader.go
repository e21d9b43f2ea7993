package pgcopy

import (
	"bufio"
	"encoding/binary"
	"io"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// readBufferSize is the size of a Reader's read buffer.
const readBufferSize = 64 << 10

// maxDisplay is how much of a line or value an error context shows, as
// PostgreSQL's MAX_COPY_DATA_DISPLAY.
const maxDisplay = 100

// Reader reads the rows of COPY FROM data.
type Reader interface {
	// Next returns the fields of the next row, one per column, nil for
	// NULL: the text of a value (escapes undone) or its binary form. They
	// are valid until the next call. At the end of the data it returns
	// io.EOF.
	Next() ([][]byte, error)
	// Line is the number of the line Next last read (PostgreSQL's: a
	// header line counts; a CSV value spanning lines does not; in binary,
	// the tuple number).
	Line() int64
	// LineText is that line's text, shortened for an error context; ""
	// in binary.
	LineText() string
	// LineBytes is the length of that line's text without its line end
	// (what PostgreSQL counts toward a COPY's insert batch); 0 in binary.
	LineBytes() int
}

// NewReader returns a Reader of data in opts's format for the named
// columns.
func NewReader(r io.Reader, opts Options, cols []string) Reader {
	br := bufio.NewReaderSize(r, readBufferSize)
	switch opts.Format {
	case CSV:
		return newCSVReader(br, opts, cols)
	case Binary:
		return &binaryReader{rd: br, cols: cols, fields: make([][]byte, len(cols))}
	}
	return newTextReader(br, opts, cols)
}

// lines reads the physical lines of text or CSV data.
type lines struct {
	rd   *bufio.Reader
	long []byte // a line longer than the read buffer, assembled
	line int64
	text []byte // the current record, for LineText
}

// next returns the next line, with its "\n" if it has one; nil at the end
// of the data. The slice is valid until the next call.
func (l *lines) next() ([]byte, error) {
	s, err := l.rd.ReadSlice('\n')
	switch err {
	case nil:
		return s, nil
	case io.EOF:
		if len(s) == 0 {
			return nil, nil
		}
		return s, nil
	case bufio.ErrBufferFull:
		return l.nextLong(s)
	}
	return nil, err
}

// nextLong assembles a line longer than the read buffer.
func (l *lines) nextLong(s []byte) ([]byte, error) {
	l.long = append(l.long[:0], s...)
	for {
		s, err := l.rd.ReadSlice('\n')
		l.long = append(l.long, s...)
		switch err {
		case nil, io.EOF:
			return l.long, nil
		case bufio.ErrBufferFull:
			continue
		}
		return nil, err
	}
}

// end reads and discards the rest of the data after an end marker, and
// returns io.EOF.
func (l *lines) end() error {
	if _, err := io.Copy(io.Discard, l.rd); err != nil {
		return err
	}
	return io.EOF
}

// Line implements Reader.
func (l *lines) Line() int64 { return l.line }

// LineText implements Reader.
func (l *lines) LineText() string { return Shorten(string(l.text)) }

// LineBytes implements Reader.
func (l *lines) LineBytes() int { return len(l.text) }

// Shorten cuts s for display in an error context, as PostgreSQL does.
func Shorten(s string) string {
	if len(s) <= maxDisplay {
		return s
	}
	n := maxDisplay
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// trimEOL removes a line's "\n" or "\r\n".
func trimEOL(s []byte) []byte {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return s
}

// checkUTF8 fails on text that is not valid UTF-8, as PostgreSQL checks
// COPY input against the client encoding.
func checkUTF8(b []byte) error {
	// Eight bytes at a time while they are ASCII (the common case).
	for len(b) >= 8 && binary.LittleEndian.Uint64(b)&0x8080808080808080 == 0 {
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			if !utf8.Valid(b) {
				return pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
			}
			return nil
		}
	}
	return nil
}

// fieldCountError reports a row with too few or too many fields.
func fieldCountError(n int, cols []string) error {
	if n < len(cols) {
		return pgerr.New(pgerr.BadCopyFileFormat, "missing data for column %q", cols[n])
	}
	return pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column")
}

func badFormat(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.BadCopyFileFormat, format, args...)
}
