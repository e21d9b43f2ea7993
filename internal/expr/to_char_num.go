package expr

import (
	"bytes"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// to_char(number, text): the number is first written as PostgreSQL's
// to_char does for its type (num_format.go), as digits with a decimal
// point and the sign apart, then laid over the template by the processor
// below, a port of formatting.c's NUM_processor: digit positions take
// the number's digits right-aligned (blanks or, from the first 0,
// zeros before them), the sign goes in front of the first digit unless S,
// MI, PL, SG or PR place it, and a number with more integer digits than
// the template has positions prints as '#'s.

// numOutput is what a template is filled with.
type numOutput struct {
	number       []byte // digits and '.', '#'s on overflow, a roman numeral, or the whole EEEE text
	outPreSpaces int    // digit positions left of the number's first digit
	sign         byte   // '+' or '-'; 0 for a roman numeral
}

// numToChar runs the to_char processor.
type numToChar struct {
	desc         numDesc
	number       []byte
	np           int // the next character of number
	lastRelevant int // FM: the last fraction digit to print; -1 for none
	sign         byte
	signWrote    bool
	numCount     int
	numIn        bool
	numCurr      int
	outPreSpaces int
	out          []byte
}

// at is number[i], or 0 past its end (C's terminating NUL).
func (p *numToChar) at(i int) byte {
	if i < len(p.number) {
		return p.number[i]
	}
	return 0
}

// fillTemplate renders o over template t, whose description the input
// type may have adjusted to d (V adds digit positions, a float may have
// fewer fraction digits).
func fillTemplate(t *numTemplate, d numDesc, o numOutput) (types.Datum, error) {
	if d.has(nfEEEE) {
		return string(o.number), nil
	}
	p := &numToChar{desc: d, number: o.number, sign: o.sign, outPreSpaces: o.outPreSpaces, lastRelevant: -1}
	p.prepare()
	for _, n := range t.nodes {
		if err := p.node(n); err != nil {
			return nil, err
		}
	}
	out := p.out
	if i := bytes.IndexByte(out, 0); i >= 0 {
		out = out[:i] // a NUL written from past the number's end ends the C string
	}
	return string(out), nil
}

// prepare sets the processor's state before the first node.
func (p *numToChar) prepare() {
	d := &p.desc
	if d.zeroStart > 0 {
		d.zeroStart--
	}
	if d.has(nfRoman) {
		d.lsign, d.preLsignNum, d.post, d.pre = 0, 0, 0, 0
		p.outPreSpaces, p.sign = 0, 0
		d.flags = nfRoman | d.flags&nfFillMode
	}
	if d.has(nfPlus) || d.has(nfMinus) {
		p.signWrote = !d.has(nfPlus) || d.has(nfMinus)
	} else {
		if p.sign != '-' && d.has(nfFillMode) {
			d.flags &^= nfBracket
		}
		p.signWrote = p.sign == '+' && d.has(nfFillMode) && !d.has(nfLSign)
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	p.numCount = d.post + d.pre - 1
	if d.has(nfFillMode) && d.has(nfDecimal) {
		p.lastRelevant = lastRelevantDecimal(p.number)
		if p.lastRelevant >= 0 && d.zeroEnd > p.outPreSpaces {
			lastZero := min(len(p.number)-1, d.zeroEnd-p.outPreSpaces)
			if p.lastRelevant < lastZero {
				p.lastRelevant = lastZero
			}
		}
	}
	if !p.signWrote && p.outPreSpaces == 0 {
		p.numCount++
	}
}

// lastRelevantDecimal returns the index of the last non-zero digit after
// the decimal point (of the point when there is none), or -1 when number
// has no point.
func lastRelevantDecimal(number []byte) int {
	dot := bytes.IndexByte(number, '.')
	if dot < 0 {
		return -1
	}
	last := dot
	for i := dot + 1; i < len(number); i++ {
		if number[i] != '0' {
			last = i
		}
	}
	return last
}

// node renders one template node.
func (p *numToChar) node(n numNode) error {
	d := &p.desc
	fm := d.has(nfFillMode)
	switch n.id {
	case numLiteral:
		p.out = append(p.out, n.lit...)
	case num9, num0, numDec, numD:
		p.digit(n.id)
	case numComma, numG:
		switch {
		case p.numIn:
			p.out = append(p.out, ',')
		case !fm:
			p.out = append(p.out, ' ')
		}
	case numL:
		p.out = append(p.out, ' ')
	case numRN, numLowerRN:
		s := string(p.number[min(p.np, len(p.number)):])
		if n.id == numLowerRN {
			s = strings.ToLower(s)
		}
		if !fm {
			s = strings.Repeat(" ", max(0, 15-len(s))) + s
		}
		p.out = append(p.out, s...)
	case numTH, numLowerTH:
		if d.has(nfRoman) || p.at(0) == '#' || p.sign == '-' || d.has(nfDecimal) {
			return nil
		}
		th, err := numOrdinal(p.number, n.id == numTH)
		if err != nil {
			return err
		}
		p.out = append(p.out, th...)
	case numMI, numPL:
		want := byte('-')
		if n.id == numPL {
			want = '+'
		}
		switch {
		case p.sign == want:
			p.out = append(p.out, want)
		case !fm:
			p.out = append(p.out, ' ')
		}
	case numSG:
		p.out = append(p.out, p.sign)
	}
	return nil
}

// numOrdinal is the ordinal suffix of the number's digits; a number not
// ending in a digit (NaN) has none.
func numOrdinal(number []byte, upper bool) (string, error) {
	if len(number) == 0 || number[len(number)-1] < '0' || number[len(number)-1] > '9' {
		return "", pgerr.New(pgerr.InvalidTextRep, "\"%s\" is not a number", number)
	}
	n := int64(number[len(number)-1] - '0')
	if len(number) > 1 && number[len(number)-2] == '1' {
		n += 10
	}
	return ordinal(n, upper), nil
}

// predecSpace reports whether the number's leading 0 before the point
// prints as a blank ("0.1" with 9.9 is " .1").
func (p *numToChar) predecSpace() bool {
	return !p.desc.has(nfZero) && p.np == 0 && p.at(0) == '0' && p.desc.post != 0
}

// digit renders a digit or decimal point position (NUM_numpart_to_char).
func (p *numToChar) digit(id numKeyID) {
	d := &p.desc
	if d.has(nfRoman) {
		return
	}
	p.numIn = false
	lastIsDot := p.lastRelevant >= 0 && p.at(p.lastRelevant) == '.'
	if !p.signWrote && (p.numCurr >= p.outPreSpaces || d.has(nfZero) && d.zeroStart == p.numCurr) &&
		(!p.predecSpace() || lastIsDot) {
		p.writeSign()
	}
	fm := d.has(nfFillMode)
	switch {
	case p.numCurr < p.outPreSpaces && (d.zeroStart > p.numCurr || !d.has(nfZero)):
		if !fm {
			p.out = append(p.out, ' ')
		}
	case d.has(nfZero) && p.numCurr < p.outPreSpaces && d.zeroStart <= p.numCurr:
		p.out = append(p.out, '0')
		p.numIn = true
	default:
		p.numberChar(id, fm, lastIsDot)
	}
	end := p.numCount
	if p.outPreSpaces > 0 {
		end++
	}
	if d.has(nfDecimal) {
		end++
	}
	if p.lastRelevant >= 0 && p.lastRelevant == p.np {
		end = p.numCurr
	}
	if p.numCurr+1 == end {
		switch {
		case p.signWrote && d.has(nfBracket):
			p.out = append(p.out, bracketChar(p.sign, '>'))
		case d.has(nfLSign) && d.lsign == lsignPost:
			p.out = append(p.out, signChar(p.sign))
		}
	}
	p.numCurr++
}

// writeSign writes the sign before the first digit, where no S at the
// end, MI, PL or SG places it.
func (p *numToChar) writeSign() {
	d := &p.desc
	switch {
	case d.has(nfLSign):
		if d.lsign == lsignPre {
			p.out = append(p.out, signChar(p.sign))
			p.signWrote = true
		}
	case d.has(nfBracket):
		p.out = append(p.out, bracketChar(p.sign, '<'))
		p.signWrote = true
	case p.sign == '+':
		if !d.has(nfFillMode) {
			p.out = append(p.out, ' ')
		}
		p.signWrote = true
	case p.sign == '-':
		p.out = append(p.out, '-')
		p.signWrote = true
	}
}

// numberChar writes the number's next character: a digit or the point.
func (p *numToChar) numberChar(id numKeyID, fm, lastIsDot bool) {
	c := p.at(p.np)
	switch {
	case c == '.':
		p.out = append(p.out, '.')
	case p.lastRelevant >= 0 && p.np > p.lastRelevant && id != num0:
		// FM: a trailing zero after the last relevant digit.
	case p.predecSpace():
		if !fm {
			p.out = append(p.out, ' ')
		} else if lastIsDot {
			p.out = append(p.out, '0')
		}
	default:
		p.out = append(p.out, c)
		p.numIn = true
	}
	if c != 0 {
		p.np++
	}
}

func signChar(sign byte) byte {
	if sign == '-' {
		return '-'
	}
	return '+'
}

// bracketChar is PR's bracket: blank for a positive number.
func bracketChar(sign, bracket byte) byte {
	if sign == '+' {
		return ' '
	}
	return bracket
}
