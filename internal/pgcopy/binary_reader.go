package pgcopy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"slices"
)

// binarySignature starts binary COPY data.
const binarySignature = "PGCOPY\n\xff\r\n\x00"

// binaryReader reads the binary format: the signature, flags and header
// extension, then per tuple an int16 field count and each field as an
// int32 length (-1: NULL) and that many bytes; a count of -1 ends it.
type binaryReader struct {
	rd      *bufio.Reader
	cols    []string
	started bool
	line    int64
	data    []byte
	ends    []int
	fields  [][]byte
}

// Line implements Reader.
func (r *binaryReader) Line() int64 { return r.line }

// LineText implements Reader.
func (r *binaryReader) LineText() string { return "" }

// LineBytes implements Reader.
func (r *binaryReader) LineBytes() int { return 0 }

// Next implements Reader.
func (r *binaryReader) Next() ([][]byte, error) {
	if !r.started {
		if err := r.header(); err != nil {
			return nil, err
		}
		r.started = true
	}
	var b [2]byte
	if _, err := io.ReadFull(r.rd, b[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF // no trailer: the end all the same, as in PostgreSQL
		}
		return nil, unexpectedEOF(err)
	}
	r.line++
	n := int16(binary.BigEndian.Uint16(b[:]))
	if n == -1 {
		return nil, r.trailer()
	}
	if int(n) != len(r.cols) {
		return nil, badFormat("row field count is %d, expected %d", n, len(r.cols))
	}
	return r.tuple()
}

// tuple reads the fields of one tuple.
func (r *binaryReader) tuple() ([][]byte, error) {
	r.data, r.ends = r.data[:0], r.ends[:0]
	var b [4]byte
	for range r.cols {
		if _, err := io.ReadFull(r.rd, b[:]); err != nil {
			return nil, unexpectedEOF(err)
		}
		size := int32(binary.BigEndian.Uint32(b[:]))
		switch {
		case size == -1:
			r.ends = append(r.ends, -1)
			continue
		case size < -1:
			return nil, badFormat("invalid field size")
		}
		if err := r.readField(int(size)); err != nil {
			return nil, err
		}
		r.ends = append(r.ends, len(r.data))
	}
	start := 0
	for i, end := range r.ends {
		if end < 0 {
			r.fields[i] = nil
			continue
		}
		r.fields[i] = r.data[start:end:end]
		start = end
	}
	return r.fields, nil
}

// readField appends a field of size bytes to r.data. Memory grows with
// the bytes that arrive, not with the size a tuple claims.
func (r *binaryReader) readField(size int) error {
	if size > maxFieldSize {
		return badFormat("invalid field size")
	}
	for size > 0 {
		n := min(size, readBufferSize)
		start := len(r.data)
		r.data = slices.Grow(r.data, n)[:start+n]
		if _, err := io.ReadFull(r.rd, r.data[start:]); err != nil {
			return unexpectedEOF(err)
		}
		size -= n
	}
	return nil
}

// maxFieldSize is the largest value PostgreSQL accepts (MaxAllocSize).
const maxFieldSize = 1<<30 - 1

// header reads and checks the file header.
func (r *binaryReader) header() error {
	var h [len(binarySignature) + 8]byte
	if _, err := io.ReadFull(r.rd, h[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return badFormat("COPY file signature not recognized")
		}
		return err
	}
	if string(h[:len(binarySignature)]) != binarySignature {
		return badFormat("COPY file signature not recognized")
	}
	flags := binary.BigEndian.Uint32(h[len(binarySignature):])
	if flags&(1<<16) != 0 {
		return badFormat("invalid COPY file header (WITH OIDS)")
	}
	if flags>>17 != 0 {
		return badFormat("unrecognized critical flags in COPY file header")
	}
	ext := int32(binary.BigEndian.Uint32(h[len(binarySignature)+4:]))
	if ext < 0 {
		return badFormat("invalid COPY file header (wrong length)")
	}
	if _, err := io.CopyN(io.Discard, r.rd, int64(ext)); err != nil {
		return badFormat("invalid COPY file header (wrong length)")
	}
	return nil
}

// trailer checks that nothing follows the end-of-data marker.
func (r *binaryReader) trailer() error {
	n, err := io.Copy(io.Discard, r.rd)
	if err != nil {
		return err
	}
	if n > 0 {
		return badFormat("received copy data after EOF marker")
	}
	return io.EOF
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badFormat("unexpected EOF in COPY data")
	}
	return err
}
