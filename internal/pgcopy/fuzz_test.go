package pgcopy

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// FuzzReader feeds arbitrary data to the readers and decoders of every
// format: they must never panic, and fail only with SQLSTATE errors.
func FuzzReader(f *testing.F) {
	f.Add(uint8(0), []byte("1\tx\\ty\n\\N\t\\x41\\101\n\\.\n"))
	f.Add(uint8(1), []byte("a,b\n1,\"q\"\"x\nmore\",\n"))
	f.Add(uint8(2), []byte(binarySignature+"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x04\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff"))
	ts := []types.Type{types.TInt32, types.TText}
	f.Fuzz(func(t *testing.T, format uint8, data []byte) {
		opts := []Option{{Name: "format", Value: Format(format % 3).String(), HasValue: true}}
		if format%3 != 2 && format&4 != 0 {
			opts = append(opts, Option{Name: "header"})
		}
		o, err := ParseOptions(opts, true)
		if err != nil {
			t.Fatal(err)
		}
		rd := NewReader(bytes.NewReader(data), o, []string{"a", "b"})
		dec := NewDecoder(o.Format, ts)
		for i := 0; i < 1000; i++ {
			fields, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *pgerr.Error
				if !errors.As(err, &pe) {
					t.Fatalf("error without SQLSTATE: %v", err)
				}
				return
			}
			for j, fl := range fields {
				if fl != nil {
					dec.Decode(j, fl)
				}
			}
			_ = rd.LineText()
		}
	})
}
