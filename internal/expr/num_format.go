package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The number side of to_char: each input type writes its value the way
// PostgreSQL 15's int4_to_char, int8_to_char, float4_to_char,
// float8_to_char and numeric_to_char do (integers exactly, floats to at
// most 6 or 15 significant digits, numerics rounded to the template's
// fraction digits), and fillTemplate lays it over the template.

// toCharNumSigs are the number overloads of to_char (smallint resolves
// to the double precision one, as in PostgreSQL).
var toCharNumSigs = []sig{
	fn2(tInt4, tText, tText, toCharNumber(func(d *numDesc, v types.Datum) (numOutput, error) {
		return intOutput(d, v.(int64), false)
	})),
	fn2(tInt8, tText, tText, toCharNumber(func(d *numDesc, v types.Datum) (numOutput, error) {
		return intOutput(d, v.(int64), true)
	})),
	fn2(tFloat4, tText, tText, toCharNumber(func(d *numDesc, v types.Datum) (numOutput, error) {
		return floatOutput(d, v.(float64), true), nil
	})),
	fn2(tFloat8, tText, tText, toCharNumber(func(d *numDesc, v types.Datum) (numOutput, error) {
		return floatOutput(d, v.(float64), false), nil
	})),
	fn2(tNum, tText, tText, toCharNumber(func(d *numDesc, v types.Datum) (numOutput, error) {
		return numericOutput(d, v.(*apd.Decimal))
	})),
}

// toCharNumber is to_char(number, template) for one input type.
func toCharNumber(write func(*numDesc, types.Datum) (numOutput, error)) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		format := a[1].(string)
		if format == "" {
			return "", nil
		}
		t, err := parseNumTemplate(format)
		if err != nil {
			return nil, err
		}
		d := t.desc
		o, err := write(&d, a[0])
		if err != nil {
			return nil, err
		}
		return fillTemplate(t, d, o)
	}
}

// digitsOutput finishes a number written as sign and digits: the blanks
// before it, or '#'s when it has more integer digits than the template.
func digitsOutput(d *numDesc, s string) numOutput {
	o := numOutput{sign: '+'}
	if strings.HasPrefix(s, "-") {
		o.sign, s = '-', s[1:]
	}
	preLen := len(s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		preLen = i
	}
	switch {
	case preLen < d.pre:
		o.outPreSpaces = d.pre - preLen
	case preLen > d.pre:
		fill := []byte(strings.Repeat("#", d.pre+d.post+1))
		fill[d.pre] = '.'
		s = string(fill)
	}
	o.number = []byte(s)
	return o
}

// intOutput writes an integer (int4_to_char, int8_to_char).
func intOutput(d *numDesc, v int64, wide bool) (numOutput, error) {
	switch {
	case d.has(nfRoman):
		if v > math.MaxInt32 || v < math.MinInt32 {
			return numOutput{}, errIntegerRange
		}
		return numOutput{number: []byte(intToRoman(v))}, nil
	case d.has(nfEEEE):
		if wide {
			return sciOutput(numericSci(apd.New(v, 0), d.post)), nil
		}
		return floatSciOutput(float64(v), d.post), nil
	}
	if d.has(nfMulti) {
		var err error
		if v, err = shiftInt(v, d.multi, wide); err != nil {
			return numOutput{}, err
		}
		d.pre += d.multi
	}
	s := strconv.FormatInt(v, 10)
	if d.post > 0 {
		s += "." + strings.Repeat("0", d.post)
	}
	return digitsOutput(d, s), nil
}

// shiftInt multiplies v by 10^multi (V) as PostgreSQL does: a bigint
// fails on overflow, an integer wraps around in 32 bits.
func shiftInt(v int64, multi int, wide bool) (int64, error) {
	p := math.Pow(10, float64(multi))
	if wide {
		errRange := pgerr.New(pgerr.NumericOutOfRange, "bigint out of range")
		if p >= 9223372036854775807 {
			return 0, errRange
		}
		f := int64(p)
		if f != 0 && (v > math.MaxInt64/f || v < math.MinInt64/f) {
			return 0, errRange
		}
		return v * f, nil
	}
	f := int32(math.MinInt32) // C's conversion of an out-of-range double
	if p < math.MaxInt32 {
		f = int32(p)
	}
	return int64(int32(v) * f), nil
}

// floatOutput writes a real or double (float4_to_char, float8_to_char).
func floatOutput(d *numDesc, v float64, single bool) numOutput {
	switch {
	case d.has(nfRoman):
		r := math.RoundToEven(v)
		n := int64(math.MaxInt32)
		if !math.IsNaN(r) && r >= math.MinInt32 && r < math.MaxInt32+1 {
			n = int64(r)
		}
		return numOutput{number: []byte(intToRoman(n))}
	case d.has(nfEEEE):
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return sciHashes(d)
		}
		return floatSciOutput(v, d.post)
	}
	if d.has(nfMulti) {
		if single {
			v = float64(float32(v) * float32(math.Pow(10, float64(d.multi))))
		} else {
			v *= math.Pow(10, float64(d.multi))
		}
		d.pre += d.multi
	}
	dig := 15
	if single {
		dig = 6
	}
	preLen := len(cFloat(math.Abs(v), 0))
	if preLen >= dig {
		d.post = 0
	} else if preLen+d.post > dig {
		d.post = dig - preLen
	}
	return digitsOutput(d, cFloat(v, d.post))
}

// cFloat is C's "%.*f" as PostgreSQL's snprintf writes it.
func cFloat(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// floatSciOutput is C's "%+.*e", the plus sign a blank.
func floatSciOutput(v float64, prec int) numOutput {
	s := strconv.FormatFloat(v, 'e', prec, 64)
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return numOutput{number: []byte(s)}
}

// sciOutput is numeric_out_sci's text, a blank before a positive one.
func sciOutput(s string) numOutput {
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return numOutput{number: []byte(s)}
}

// sciHashes is EEEE's output for NaN and infinity.
func sciHashes(d *numDesc) numOutput {
	b := []byte(strings.Repeat("#", d.pre+d.post+6))
	b[0], b[d.pre+1] = ' ', '.'
	return numOutput{number: b}
}

// numericOutput writes a numeric (numeric_to_char).
func numericOutput(d *numDesc, v *apd.Decimal) (numOutput, error) {
	switch {
	case d.has(nfRoman):
		n, err := numericInt4(v)
		if err != nil {
			return numOutput{}, err
		}
		return numOutput{number: []byte(intToRoman(n))}, nil
	case d.has(nfEEEE):
		if v.Form != apd.Finite {
			return sciHashes(d), nil
		}
		return sciOutput(numericSci(v, d.post)), nil
	}
	if d.has(nfMulti) {
		if v.Form == apd.Finite {
			s := new(apd.Decimal).Set(v)
			s.Exponent += int32(d.multi)
			v = types.NormalizeNumeric(s)
		}
		d.pre += d.multi
	}
	return digitsOutput(d, types.FormatNumeric(types.RoundNumeric(v, d.post))), nil
}

var errIntegerRange = pgerr.New(pgerr.NumericOutOfRange, "integer out of range")

// numericInt4 is numeric_int4: v rounded half away from zero.
func numericInt4(v *apd.Decimal) (int64, error) {
	switch v.Form {
	case apd.NaN, apd.NaNSignaling:
		return 0, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to integer")
	case apd.Infinite:
		return 0, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to integer")
	}
	i, err := types.RoundNumeric(v, 0).Int64()
	if err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		return 0, errIntegerRange
	}
	return i, nil
}

// numericSci is PostgreSQL's numeric_out_sci: the significand rounded
// (half away from zero) to scale fraction digits, and the exponent of
// the value's leading digit. The significand may round up to 10.
func numericSci(v *apd.Decimal, scale int) string {
	exp := 0
	if !v.IsZero() {
		exp = int(v.NumDigits()) + int(v.Exponent) - 1
	}
	sig := new(apd.Decimal).Set(v)
	sig.Exponent -= int32(exp)
	sig = types.RoundNumeric(sig, scale)
	s := types.FormatNumeric(sig)
	e := strconv.FormatInt(absI64(int64(exp)), 10)
	if len(e) < 2 {
		e = "0" + e
	}
	if exp < 0 {
		return s + "e-" + e
	}
	return s + "e+" + e
}

// intToRoman writes 1 to 3999 in roman numerals, anything else as 15 '#'.
func intToRoman(n int64) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	var b strings.Builder
	for _, r := range []struct {
		v int64
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"},
		{10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= r.v {
			b.WriteString(r.s)
			n -= r.v
		}
	}
	return b.String()
}
