package storage

import (
	"errors"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

func TestRowRoundTrip(t *testing.T) {
	rng := newRNG(3)
	var buf []byte
	var dst []types.Datum
	for range 2000 {
		n := rng.intn(20)
		ts := make([]types.Type, n)
		row := make([]types.Datum, n)
		for i := range ts {
			ts[i] = allTypes[rng.intn(len(allTypes))]
			row[i] = genDatum(rng, ts[i])
		}
		var err error
		if buf, err = EncodeRow(buf[:0], ts, row); err != nil {
			t.Fatalf("EncodeRow: %v", err)
		}
		if dst, err = DecodeRow(buf, ts, dst); err != nil {
			t.Fatalf("DecodeRow(%x): %v", buf, err)
		}
		if !sameRow(row, dst) {
			t.Fatalf("round trip: got %v, want %v", dst, row)
		}
	}
}

func TestRowKeepsNumericScale(t *testing.T) {
	for _, s := range []string{"1.50", "-0.000", "100E+3", "123456789012345678901234567890.1200", "NaN", "-Infinity", "0E-20"} {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		ts := []types.Type{types.TNumeric}
		enc, err := EncodeRow(nil, ts, []types.Datum{d})
		if err != nil {
			t.Fatal(err)
		}
		row, err := DecodeRow(enc, ts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := row[0].(*apd.Decimal).String(); got != d.String() {
			t.Errorf("numeric %s came back as %s", d, got)
		}
	}
}

func TestRowFloatBitsSurvive(t *testing.T) {
	ts := []types.Type{types.TFloat64, types.TFloat32}
	row := []types.Datum{math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123)}
	enc, _ := EncodeRow(nil, ts, row)
	got, err := DecodeRow(enc, ts, nil)
	if err != nil || !sameRow(got, row) {
		t.Fatalf("got %v, %v", got, err)
	}
}

// TestRowShorterThanSchema decodes a row written before columns were added.
func TestRowShorterThanSchema(t *testing.T) {
	old := []types.Type{types.TInt64, types.TText}
	enc, err := EncodeRow(nil, old, []types.Datum{int64(7), "x"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRow(enc, append(old, types.TBool, types.TDate), []types.Datum{1, 2, 3, 4, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	if want := []types.Datum{int64(7), "x", nil, nil}; !sameRow(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := DecodeRow(enc, old[:1], nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("decoding with fewer types: %v, want ErrCorrupt", err)
	}
}

func TestRowRejectsBadInput(t *testing.T) {
	ts := []types.Type{types.TInt64, types.TText}
	if _, err := EncodeRow(nil, ts, []types.Datum{int64(1)}); !errors.Is(err, ErrBadLayout) {
		t.Errorf("short row: %v", err)
	}
	if _, err := EncodeRow(nil, ts, []types.Datum{"1", "x"}); !errors.Is(err, ErrBadLayout) {
		t.Errorf("wrong datum type: %v", err)
	}
	enc, _ := EncodeRow(nil, ts, []types.Datum{int64(1), "hello"})
	for i := range enc {
		if _, err := DecodeRow(enc[:i], ts, nil); err == nil {
			t.Errorf("truncated to %d bytes: decoded", i)
		}
	}
	if _, err := DecodeRow(append(enc, 0), ts, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: %v", err)
	}
}
