package expr

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// BitState is the retractable state of bit_and, bit_or and bit_xor: how
// many non-NULL inputs there are and, for each of the 64 bits, how many
// of them have it set. A bit of bit_or is set when any input has it, of
// bit_and when all do, of bit_xor when an odd number do.
type BitState struct {
	N      int64
	Counts [64]int64
}

// Accumulate adds (retract false) or removes one non-NULL input.
func (st *BitState) Accumulate(v types.Datum, retract bool) {
	d := int64(1)
	if retract {
		d = -1
	}
	st.N += d
	u := uint64(v.(int64))
	for u != 0 {
		b := 63 - bits.LeadingZeros64(u)
		st.Counts[b] += d
		u &^= 1 << uint(b)
	}
}

// Result is aggregate k's value over the state (NULL over no input), of
// the input's integer type t.
func (st *BitState) Result(k AggKind, t types.Type) types.Datum {
	if st.N == 0 {
		return nil
	}
	var u uint64
	for b, c := range st.Counts {
		var set bool
		switch k {
		case AggBitAnd:
			set = c == st.N
		case AggBitOr:
			set = c > 0
		default:
			set = c%2 != 0
		}
		if set {
			u |= 1 << uint(b)
		}
	}
	v := int64(u)
	switch t.ID {
	case types.IDInt16:
		v = int64(int16(v))
	case types.IDInt32:
		v = int64(int32(v))
	}
	return v
}

// String encodes the bit counts as "bit:count" pairs, as a view keeps
// them.
func (st *BitState) String() string {
	var b strings.Builder
	for i, c := range st.Counts {
		if c == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d", i, c)
	}
	return b.String()
}

// ParseBitCounts decodes BitState.String's text into st.Counts.
func (st *BitState) ParseBitCounts(text string) error {
	st.Counts = [64]int64{}
	for _, f := range strings.Fields(text) {
		k, v, ok := strings.Cut(f, ":")
		b, err1 := strconv.Atoi(k)
		n, err2 := strconv.ParseInt(v, 10, 64)
		if !ok || err1 != nil || err2 != nil || b < 0 || b > 63 {
			return fmt.Errorf("expr: bad bit counts %q", text)
		}
		st.Counts[b] = n
	}
	return nil
}
