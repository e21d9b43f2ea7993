package vec

import (
	"cmp"
	"math"
	"unsafe"
)

// kop is the comparison a kernel computes: =, < or >. The other three
// are their negations (<> is NOT =, >= NOT <, <= NOT >), which holds on
// non-NULL values because every order here is total (floats included:
// NaN equals NaN and sorts above every number).
type kop uint8

const (
	kEQ kop = iota
	kLT
	kGT
)

// kernelOp maps a SQL comparison to its kernel and whether to negate it.
func kernelOp(op string) (k kop, neg, ok bool) {
	switch op {
	case "=":
		return kEQ, false, true
	case "<>":
		return kEQ, true, true
	case "<":
		return kLT, false, true
	case ">=":
		return kLT, true, true
	case ">":
		return kGT, false, true
	case "<=":
		return kGT, true, true
	}
	return 0, false, false
}

// flip is the kernel with its operands swapped (a < b is b > a).
func (k kop) flip() kop {
	switch k {
	case kLT:
		return kGT
	case kGT:
		return kLT
	}
	return k
}

// forWords calls word for each 64-row block of n rows and stores the
// bits it returns.
func forWords(n int, out []uint64, word func(lo, hi int) uint64) {
	for w := range out {
		lo := w << 6
		out[w] = word(lo, min(lo+64, n))
	}
}

// cmpConst sets a bit per value: v k c.
func cmpConst[T cmp.Ordered](vals []T, c T, k kop, out []uint64) {
	n := len(vals)
	for w := range out {
		lo := w << 6
		block := vals[lo:min(lo+64, n)]
		var word uint64
		switch k {
		case kEQ:
			for j, v := range block {
				word |= b2u(v == c) << uint(j)
			}
		case kLT:
			for j, v := range block {
				word |= b2u(v < c) << uint(j)
			}
		default:
			for j, v := range block {
				word |= b2u(v > c) << uint(j)
			}
		}
		out[w] = word
	}
}

// cmpVec sets a bit per row: a[i] k b[i].
func cmpVec[T cmp.Ordered](a, b []T, k kop, out []uint64) {
	n := len(a)
	b = b[:n]
	for w := range out {
		lo := w << 6
		hi := min(lo+64, n)
		x, y := a[lo:hi], b[lo:hi]
		var word uint64
		switch k {
		case kEQ:
			for j, v := range x {
				word |= b2u(v == y[j]) << uint(j)
			}
		case kLT:
			for j, v := range x {
				word |= b2u(v < y[j]) << uint(j)
			}
		default:
			for j, v := range x {
				word |= b2u(v > y[j]) << uint(j)
			}
		}
		out[w] = word
	}
}

type integer interface {
	~int16 | ~int32 | ~int64
}

// intConst compares integer values of any width with c, exactly as
// int64s: a c outside T's range decides every row.
func intConst[T integer](vals []T, c int64, k kop, out []uint64) {
	bitsOf := uint(unsafe.Sizeof(T(0))) * 8
	lo, hi := int64(-1)<<(bitsOf-1), int64(1)<<(bitsOf-1)-1
	if bitsOf == 64 {
		lo, hi = math.MinInt64, math.MaxInt64
	}
	n := len(vals)
	switch {
	case c < lo: // every value is above c
		constBits(out, n, k == kGT)
	case c > hi: // every value is below c
		constBits(out, n, k == kLT)
	default:
		cmpConst(vals, T(c), k, out)
	}
}

// constBits sets every row's bit to v.
func constBits(out []uint64, n int, v bool) {
	if v {
		fill(out, n)
	} else {
		clear(out)
	}
}

// floatConst compares floats (as float64) with c in PostgreSQL's order.
func floatConst[T float32 | float64](vals []T, c float64, k kop, out []uint64) {
	n := len(vals)
	if c != c { // NaN: equal to NaN, above everything else
		forWords(n, out, func(lo, hi int) uint64 {
			var word uint64
			for j, v := range vals[lo:hi] {
				isNaN := v != v
				switch k {
				case kEQ:
					word |= b2u(isNaN) << uint(j)
				case kLT:
					word |= b2u(!isNaN) << uint(j)
				}
			}
			return word
		})
		return
	}
	for w := range out {
		lo := w << 6
		block := vals[lo:min(lo+64, n)]
		var word uint64
		switch k {
		case kEQ:
			for j, v := range block {
				word |= b2u(float64(v) == c) << uint(j)
			}
		case kLT:
			for j, v := range block {
				word |= b2u(float64(v) < c) << uint(j)
			}
		default: // NaN is above c
			for j, v := range block {
				word |= b2u(float64(v) > c || v != v) << uint(j)
			}
		}
		out[w] = word
	}
}

// floatVec compares floats row by row in PostgreSQL's order.
func floatVec(a, b []float64, k kop, out []uint64) {
	n := len(a)
	b = b[:n]
	for w := range out {
		lo := w << 6
		hi := min(lo+64, n)
		x, y := a[lo:hi], b[lo:hi]
		var word uint64
		for j, v := range x {
			u := y[j]
			vn, un := v != v, u != u
			var r bool
			switch k {
			case kEQ:
				r = v == u || (vn && un)
			case kLT:
				r = v < u || (!vn && un)
			default:
				r = v > u || (vn && !un)
			}
			word |= b2u(r) << uint(j)
		}
		out[w] = word
	}
}

// boolCmp compares boolean bitmaps (false < true) word by word.
func boolCmp(a, b []uint64, k kop, out []uint64) {
	for i := range out {
		switch k {
		case kEQ:
			out[i] = ^(a[i] ^ b[i])
		case kLT:
			out[i] = ^a[i] & b[i]
		default:
			out[i] = a[i] &^ b[i]
		}
	}
}

// widen copies integer values into int64s.
func widen[T integer](vals []T, out []int64) {
	for i, v := range vals {
		out[i] = int64(v)
	}
}
