package expr

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// to_number(text, template) reads a number back through a number
// template, as PostgreSQL 15 does (formatting.c's NUM_processor in
// reading mode): each digit position reads at most one digit, the
// decimal point position the point, the sign forms a sign; group
// separators are skipped when they are there, other template characters
// skip one input character whatever it is. The digits read then go
// through numeric input, and V divides by its power of ten.

func init() {
	register(overloads(fn2(tText, tText, tNum, toNumber)), "to_number")
}

// numFromChar is the reading processor's state.
type numFromChar struct {
	desc     numDesc
	in       string
	p        int    // the next input byte
	number   []byte // the sign (' ' for none) then the digits read
	readDec  bool
	readPre  int
	readPost int
}

func toNumber(a []types.Datum) (types.Datum, error) {
	format := a[1].(string)
	if format == "" {
		return nil, nil
	}
	t, err := parseNumTemplate(format)
	if err != nil {
		return nil, err
	}
	r := &numFromChar{desc: t.desc, in: a[0].(string), number: []byte{' '}}
	if err := r.check(); err != nil {
		return nil, err
	}
	for _, n := range t.nodes {
		if r.p >= len(r.in) {
			break
		}
		r.node(n)
	}
	s := r.number
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	d, err := types.ParseNumeric(string(s), types.TNumeric)
	if err != nil {
		return nil, err
	}
	if err := fitDigits(d, t.desc.pre+t.desc.multi); err != nil {
		return nil, err
	}
	if t.desc.has(nfMulti) {
		return shiftBack(d, t.desc.multi), nil
	}
	return d, nil
}

// fitDigits fails as PostgreSQL's numeric input does when the number
// read has more integer digits than the template's digit positions before
// the point (and V) allow.
func fitDigits(d *apd.Decimal, maxDigits int) error {
	if d.IsZero() || int(d.NumDigits())+int(d.Exponent) <= maxDigits {
		return nil
	}
	scale := types.NumericScale(d)
	limit := "1"
	if maxDigits > 0 {
		limit = fmt.Sprintf("10^%d", maxDigits)
	}
	e := pgerr.New(pgerr.NumericOutOfRange, "numeric field overflow")
	e.Detail = fmt.Sprintf("A field with precision %d, scale %d must round to an absolute value less than %s.",
		maxDigits+scale, scale, limit)
	return e
}

// check rejects the patterns that cannot be read.
func (r *numFromChar) check() error {
	switch {
	case r.desc.has(nfEEEE):
		return pgerr.New(pgerr.FeatureNotSupported, `"EEEE" not supported for input`)
	case r.desc.has(nfRoman):
		return pgerr.New(pgerr.FeatureNotSupported, `"RN" not supported for input`)
	}
	if r.desc.zeroStart > 0 {
		r.desc.zeroStart--
	}
	return nil
}

// shiftBack divides by 10^multi as PostgreSQL does: times
// power(10, -multi), which has 16 fraction digits (0 past 16).
func shiftBack(d *apd.Decimal, multi int) *apd.Decimal {
	r := &apd.Decimal{Exponent: d.Exponent - 16, Negative: d.Negative}
	if multi <= 16 {
		r.Coeff.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(16-multi)), nil)
		r.Coeff.Mul(&r.Coeff, &d.Coeff)
	}
	return types.NormalizeNumeric(r)
}

// at is the input byte at i, or 0 past the end.
func (r *numFromChar) at(i int) byte {
	if i < len(r.in) {
		return r.in[i]
	}
	return 0
}

// node reads what one template node stands for.
func (r *numFromChar) node(n numNode) {
	d := &r.desc
	switch n.id {
	case numLiteral:
		r.p += charLen(r.in[r.p:])
	case num9, num0, numDec, numD:
		r.digit(n.id)
		r.p++
	case numComma, numG:
		if !d.has(nfFillMode) && r.in[r.p] == ',' {
			r.p++
		}
	case numL:
		r.skipNonData(1)
	case numTH, numLowerTH:
		if !d.has(nfDecimal) && r.number[0] != '#' {
			r.skipNonData(2)
		}
	case numMI, numPL, numSG:
		c := r.in[r.p]
		if c == '-' && n.id != numPL || c == '+' && n.id != numMI {
			r.number[0] = c
			r.p++
			return
		}
		r.skipNonData(1)
	}
}

// skipNonData skips up to n input characters that cannot be part of the
// number.
func (r *numFromChar) skipNonData(n int) {
	for ; n > 0 && r.p < len(r.in); n-- {
		switch c := r.in[r.p]; {
		case c >= '0' && c <= '9', c == '.', c == ',', c == '+', c == '-':
			return
		}
		r.p += charLen(r.in[r.p:])
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digit reads at a digit or decimal point position
// (NUM_numpart_from_char); the caller then moves past one character.
func (r *numFromChar) digit(id numKeyID) {
	d := &r.desc
	if r.at(r.p) == ' ' {
		r.p++
	}
	if r.p >= len(r.in) {
		return
	}
	if r.number[0] == ' ' && (id == num0 || id == num9) && r.readPre+r.readPost == 0 {
		r.leadingSign()
		if r.p >= len(r.in) {
			return
		}
	}
	isRead := false
	c := r.in[r.p]
	switch {
	case isDigit(c):
		if r.readDec && r.readPost == d.post {
			return
		}
		r.number = append(r.number, c)
		if r.readDec {
			r.readPost++
		} else {
			r.readPre++
		}
		isRead = true
	case d.has(nfDecimal) && !r.readDec && c == '.':
		r.number = append(r.number, '.')
		r.readDec, isRead = true, true
	}
	if r.number[0] == ' ' && r.readPre+r.readPost > 0 {
		r.trailingSign(isRead)
	}
}

// leadingSign reads a sign before the first digit.
func (r *numFromChar) leadingSign() {
	d := &r.desc
	c := r.in[r.p]
	if d.has(nfLSign) && d.lsign == lsignPre {
		if c == '-' || c == '+' {
			r.number[0] = c
			r.p++
		}
		return
	}
	switch {
	case c == '-' || d.has(nfBracket) && c == '<':
		r.number[0] = '-'
		r.p++
	case c == '+':
		r.number[0] = '+'
		r.p++
	}
}

// trailingSign reads a sign right after the digits (S, or MI/PL/SG
// that the template does not place exactly).
func (r *numFromChar) trailingSign(isRead bool) {
	d := &r.desc
	switch {
	case d.has(nfLSign) && isRead && r.p+1 < len(r.in) && !isDigit(r.in[r.p+1]):
		if c := r.in[r.p+1]; c == '-' || c == '+' {
			r.number[0] = c
			r.p++
		}
	case !isRead && !d.has(nfLSign) && (d.has(nfPlus) || d.has(nfMinus)):
		if c := r.in[r.p]; c == '-' || c == '+' {
			r.number[0] = c
		}
	}
}
