package vec

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/types"
)

// kind is how a value kernel holds the values of a SQL type.
type kind uint8

const (
	kNone    kind = iota
	kInt          // smallint, integer, bigint, date, timestamp[tz]: int64
	kFloat        // real, double precision: float64
	kBool         // boolean: a bitmap of the true rows
	kString       // text, varchar: string
	kNumeric      // numeric: num (value_numeric.go)
)

// kindOf is the kind of t (kNone: no value kernels).
func kindOf(t types.Type) kind {
	if t.IsOID() {
		return kNone
	}
	if t.ID == types.IDNumeric {
		return kNumeric
	}
	switch familyOf(t) {
	case famInt, famTime:
		return kInt
	case famFloat:
		return kFloat
	case famBool:
		return kBool
	case famString:
		return kString
	}
	return kNone
}

// vvec is a value per row. Only the slice of its kind is set; values of
// NULL and error rows are undefined (kernels compute over them without
// failing, and ignore them). valid has the non-NULL rows (nil: all); errs
// the rows that raised an error, which are never valid. A node returns
// scratch its caller may overwrite, except valid when ownValid is false
// (it may be a column's cached bitmap).
type vvec struct {
	i        []int64
	f        []float64
	s        []string
	n        []num
	b        []uint64
	valid    []uint64
	ownValid bool
	errs     rowErrs
}

// valueNode evaluates a value expression over every row of a chunk.
type valueNode interface {
	eval(x *evalCtx) vvec
}

// isValid reports whether row i of v is neither NULL nor an error.
func (v *vvec) isValid(i int) bool { return v.valid == nil || bit(v.valid, i) }

// fail records err as row i's error: the row is no longer valid.
func (v *vvec) fail(x *evalCtx, i int, err error) {
	if !v.ownValid {
		w := x.bits()
		if v.valid == nil {
			fill(w, x.n)
		} else {
			copy(w, v.valid)
		}
		v.valid, v.ownValid = w, true
	}
	clearBit(v.valid, i)
	if v.errs == nil {
		v.errs = rowErrs{}
	}
	v.errs[i] = err
}

// floats returns a scratch vector of the chunk's rows.
func (x *evalCtx) floats() []float64 {
	var v []float64
	if k := len(x.freeF); k > 0 && cap(x.freeF[k-1]) >= x.n {
		v = x.freeF[k-1][:x.n]
		x.freeF = x.freeF[:k-1]
	} else {
		v = make([]float64, x.n)
	}
	x.usedF = append(x.usedF, v)
	return v
}

// strs returns a scratch vector of the chunk's rows.
func (x *evalCtx) strs() []string {
	var v []string
	if k := len(x.freeS); k > 0 && cap(x.freeS[k-1]) >= x.n {
		v = x.freeS[k-1][:x.n]
		x.freeS = x.freeS[:k-1]
	} else {
		v = make([]string, x.n)
	}
	x.usedS = append(x.usedS, v)
	return v
}

// str returns the bytes appended to the arena since start as a string.
// The string lives until the next chunk: the arena is reused then, once
// the strings were copied into the output's Arrow buffers.
func (x *evalCtx) str(start int) string {
	b := x.arena[start:]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// newVec returns a vector of kind k with every row NULL, all of it
// scratch.
func (x *evalCtx) newVec(k kind) vvec {
	v := vvec{valid: x.zeros(), ownValid: true}
	switch k {
	case kInt:
		v.i = x.ints()
	case kFloat:
		v.f = x.floats()
	case kBool:
		v.b = x.zeros()
	case kString:
		v.s = x.strs()
	case kNumeric:
		v.n = x.nums()
	}
	return v
}

// valueColumn reads input column idx.
type valueColumn struct {
	idx int
	k   kind
}

func (c valueColumn) eval(x *evalCtx) vvec {
	v := vvec{valid: x.validOf(c.idx)}
	switch c.k {
	case kInt:
		v.i = intColumn{idx: c.idx}.vec(x).vals
	case kFloat:
		v.f = x.floats()
		switch a := x.c.Rec.Column(c.idx).(type) {
		case *array.Float64:
			copy(v.f, a.Float64Values())
		case *array.Float32:
			for i, f := range a.Float32Values() {
				v.f[i] = float64(f)
			}
		}
	case kBool:
		v.b = boolValues(x, c.idx)
	case kString:
		v.s = x.strs()
		offs, data := stringsOf(x.c.Rec.Column(c.idx).(*array.String))
		base := offs[0]
		for i := range v.s {
			b := data[offs[i]-base : offs[i+1]-base]
			if len(b) == 0 {
				v.s[i] = ""
			} else {
				v.s[i] = unsafe.String(&b[0], len(b)) // the chunk outlives the evaluation
			}
		}
	case kNumeric:
		v.n = numColumn(x, c.idx, v.valid)
	}
	return v
}

// valueConst is a constant (NULL when null).
type valueConst struct {
	k    kind
	val  types.Datum
	null bool
}

func (k valueConst) eval(x *evalCtx) vvec {
	v := vvec{}
	if k.null {
		v.valid, v.ownValid = x.zeros(), true
	}
	switch k.k {
	case kInt:
		v.i = x.ints()
		n, _ := intValue(k.val, false)
		for i := range v.i {
			v.i[i] = n
		}
	case kFloat:
		v.f = x.floats()
		f, _ := k.val.(float64)
		for i := range v.f {
			v.f[i] = f
		}
	case kBool:
		v.b = x.bits()
		b, _ := k.val.(bool)
		constBits(v.b, x.n, b)
	case kString:
		v.s = x.strs()
		s, _ := k.val.(string)
		for i := range v.s {
			v.s[i] = s
		}
	case kNumeric:
		v.n = x.nums()
		var c num
		if d, ok := k.val.(*apd.Decimal); ok {
			c = numOf(d)
		}
		for i := range v.n {
			v.n[i] = c
		}
	}
	return v
}

// constValue compiles a constant of kind k.
func constValue(c *expr.Const, k kind) (valueNode, bool) {
	if c.Value == nil {
		return valueConst{k: k, null: true}, true
	}
	ok := false
	switch k {
	case kInt:
		_, ok = intValue(c.Value, false)
	case kFloat:
		_, ok = c.Value.(float64)
	case kBool:
		_, ok = c.Value.(bool)
	case kString:
		_, ok = c.Value.(string)
	case kNumeric:
		_, ok = c.Value.(*apd.Decimal)
	}
	return valueConst{k: k, val: c.Value}, ok
}

// strictArgs combines the validity and errors of a strict operator's
// arguments, evaluated left to right up to the first NULL: a row's error
// is that of the first argument that raised one with all before it
// non-NULL. The result's valid is scratch (or nil: all valid).
func strictArgs(x *evalCtx, args []vvec) vvec {
	var out vvec
	for k, a := range args {
		if k > 0 && len(a.errs) > 0 {
			prev := out.valid
			out.errs = union(out.errs, a.errs, func(r int) bool { return prev == nil || bit(prev, r) })
		} else if k == 0 {
			out.errs = a.errs
		}
		switch {
		case a.valid == nil:
		case out.valid == nil:
			out.valid = a.valid
		default:
			w := x.bits()
			for i := range w {
				w[i] = out.valid[i] & a.valid[i]
			}
			out.valid, out.ownValid = w, true
		}
	}
	if out.valid != nil && !out.ownValid {
		w := x.bits()
		copy(w, out.valid)
		out.valid, out.ownValid = w, true
	}
	for r := range out.errs { // an error of a later argument on a valid row
		clearBit(out.valid, r)
	}
	return out
}
