package vec

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// rowErrs maps a row to the error evaluating it raised (nil: none did).
type rowErrs map[int]error

// first returns the error of the lowest row.
func (e rowErrs) first() error {
	row, err := -1, error(nil)
	for r, x := range e {
		if row < 0 || r < row {
			row, err = r, x
		}
	}
	return err
}

// union returns a's errors plus those of b's rows that keep(row) admits.
func union(a, b rowErrs, keep func(int) bool) rowErrs {
	if len(b) == 0 {
		return a
	}
	out := rowErrs{}
	for r, e := range a {
		out[r] = e
	}
	for r, e := range b {
		if _, dup := out[r]; !dup && keep(r) {
			out[r] = e
		}
	}
	return out
}

// bvec is a boolean per row: t and f hold the true and false rows; a row
// in neither is NULL, or raised the error errs holds for it.
type bvec struct {
	t, f []uint64
	errs rowErrs
}

// clearErrs drops the error rows from t and f.
func (v *bvec) clearErrs() {
	for r := range v.errs {
		clearBit(v.t, r)
		clearBit(v.f, r)
	}
}

func bit(w []uint64, i int) bool { return w[i>>6]&(1<<(uint(i)&63)) != 0 }
func setBit(w []uint64, i int)   { w[i>>6] |= 1 << (uint(i) & 63) }
func clearBit(w []uint64, i int) { w[i>>6] &^= 1 << (uint(i) & 63) }

// b2u is 1 for true: compiled to a flag move, not a branch.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// tailMask is the mask of the valid bits of the last of the words of n
// rows.
func tailMask(n int) uint64 {
	if n&63 == 0 {
		return ^uint64(0)
	}
	return 1<<(uint(n)&63) - 1
}

// fill sets the first n bits of w (and clears the rest).
func fill(w []uint64, n int) {
	for i := range w {
		w[i] = ^uint64(0)
	}
	if len(w) > 0 {
		w[len(w)-1] &= tailMask(n)
	}
}

// truthOf turns res, one bit per row (the comparison held), into a bvec
// over the rows valid has (nil: all n), swapping true and false when neg.
// res becomes the true bitmap; f is scratch of the same length.
func truthOf(res, valid, f []uint64, n int, neg bool) bvec {
	for i := range res {
		m := ^uint64(0)
		if valid != nil {
			m = valid[i]
		}
		if i == len(res)-1 {
			m &= tailMask(n)
		}
		r := res[i]
		res[i] = r & m
		f[i] = ^r & m
	}
	if neg {
		return bvec{t: f, f: res}
	}
	return bvec{t: res, f: f}
}

// and2 returns the rows valid in both (nil: all valid) into out.
func and2(a, b, out []uint64) []uint64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	for i := range out {
		out[i] = a[i] & b[i]
	}
	return out
}

// validity returns the validity bitmap of col as words (nil when no value
// is NULL), into scratch of the words of col's length.
func validity(col arrow.Array, scratch []uint64) []uint64 {
	if col.NullN() == 0 {
		return nil
	}
	bm := col.NullBitmapBytes()
	if bm == nil {
		return nil
	}
	copyBits(bm, col.Data().Offset(), col.Len(), scratch)
	return scratch
}

// copyBits copies n bits of the Arrow bitmap src from bit offset into
// the words dst, clearing dst's bits past n.
func copyBits(src []byte, offset, n int, dst []uint64) {
	for i := range dst {
		dst[i] = 0
	}
	if n == 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(dst)*8)
	bitutil.CopyBitmap(src, offset, n, b, 0)
}

// appendSet appends the indexes of the set bits of w to sel.
func appendSet(sel []int, w []uint64) []int {
	for i, word := range w {
		for word != 0 {
			sel = append(sel, i<<6+bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	return sel
}
