package types

import (
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// ParseNumeric reads a numeric: a decimal number with optional exponent, or
// NaN, Infinity, -Infinity. The value keeps the scale it was written with
// (1.50 has scale 2; 1e3 has scale 0) and is then fitted to t's precision
// and scale, if any (see ApplyTypmod).
func ParseNumeric(s string, t Type) (*apd.Decimal, error) {
	v := strings.TrimSpace(s)
	var d *apd.Decimal
	switch strings.ToLower(v) {
	case "nan":
		d = &apd.Decimal{Form: apd.NaN}
	case "infinity", "+infinity", "inf", "+inf":
		d = &apd.Decimal{Form: apd.Infinite}
	case "-infinity", "-inf":
		d = &apd.Decimal{Form: apd.Infinite, Negative: true}
	default:
		if !isDecimalSyntax(v) {
			return nil, syntaxError(TNumeric, s)
		}
		var err error
		d, _, err = apd.NewFromString(v)
		if err != nil {
			return nil, syntaxError(TNumeric, s)
		}
		d = NormalizeNumeric(d)
	}
	return ApplyTypmod(d, t)
}

// NormalizeNumeric returns d with a non-positive exponent (the scale
// Postgres would show) and no negative zero. d is not modified.
func NormalizeNumeric(d *apd.Decimal) *apd.Decimal {
	if d.Form != apd.Finite || (d.Exponent <= 0 && !(d.Negative && d.IsZero())) {
		return d
	}
	r := new(apd.Decimal).Set(d)
	if r.Exponent > 0 {
		r.Coeff.Mul(&r.Coeff, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(r.Exponent)), nil))
		r.Exponent = 0
	}
	if r.IsZero() {
		r.Negative = false
	}
	return r
}

// NumericScale returns the display scale of a finite numeric.
func NumericScale(d *apd.Decimal) int {
	if d.Exponent >= 0 {
		return 0
	}
	return int(-d.Exponent)
}

// RoundNumeric rounds d to scale digits after the point, half away from
// zero, as Postgres's round_var does. A negative scale rounds to tens,
// hundreds ... and leaves scale 0.
func RoundNumeric(d *apd.Decimal, scale int) *apd.Decimal {
	return quantize(d, scale, apd.RoundHalfUp)
}

// TruncNumeric truncates d toward zero to scale digits after the point.
func TruncNumeric(d *apd.Decimal, scale int) *apd.Decimal {
	return quantize(d, scale, apd.RoundDown)
}

func quantize(d *apd.Decimal, scale int, mode apd.Rounder) *apd.Decimal {
	if d.Form != apd.Finite {
		return d
	}
	ctx := apd.Context{Precision: uint32(d.NumDigits()) + uint32(max(scale, 0)) + 2, Rounding: mode, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent}
	r := new(apd.Decimal)
	_, _ = ctx.Quantize(r, d, int32(-scale))
	if scale < 0 {
		_, _ = ctx.Quantize(r, r, 0)
	}
	return NormalizeNumeric(r)
}

// ApplyTypmod fits d to numeric type t: it rounds to t's scale and fails
// with 22003 "numeric field overflow" when the result needs more than
// precision - scale integer digits. Unconstrained numerics pass unchanged.
func ApplyTypmod(d *apd.Decimal, t Type) (*apd.Decimal, error) {
	if t.Precision <= 0 {
		return d, nil
	}
	if d.Form == apd.Infinite {
		return nil, &pgerr.Error{Code: pgerr.NumericOutOfRange, Message: "numeric field overflow",
			Detail: sprintf("A field with precision %d, scale %d cannot hold an infinite value.", t.Precision, t.Scale)}
	}
	if d.Form != apd.Finite {
		return d, nil
	}
	r := RoundNumeric(d, t.Scale)
	maxDigits := t.Precision - t.Scale
	if !r.IsZero() && int(r.NumDigits())+int(r.Exponent) > maxDigits {
		return nil, typmodOverflow(t, maxDigits)
	}
	return r, nil
}

func typmodOverflow(t Type, maxDigits int) error {
	limit := "1"
	if maxDigits > 0 {
		limit = sprintf("10^%d", maxDigits)
	}
	return &pgerr.Error{Code: pgerr.NumericOutOfRange, Message: "numeric field overflow",
		Detail: sprintf("A field with precision %d, scale %d must round to an absolute value less than %s.", t.Precision, t.Scale, limit)}
}
