package expr

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Number templates, as PostgreSQL 15's to_char(number, text) and
// to_number(text, text) read them (formatting.c's NUM keywords): 9 and
// 0 are digit positions (0 keeps leading zeros), . and D the decimal
// point, , and G the group separator, S PL MI SG PR the sign forms, L a
// currency symbol, V a power-of-ten shift, EEEE scientific notation, RN
// roman numerals, TH an ordinal suffix, FM fill mode (no padding); B, C
// and SP are read but do nothing. Any other character is copied (to_char)
// or skipped (to_number); "..." quotes literal text, \" a double quote.
// The session's locale is C: G is ',', D is '.', L is ' '.

// numKeyID names a number template pattern; numLiteral is a copied
// character.
type numKeyID uint8

const (
	numLiteral numKeyID = iota
	numComma
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numSG
	numSP
	numS
	numTH
	numV
	numLowerRN
	numLowerTH
)

// numKeywords are the patterns, in PostgreSQL's search order: the first
// one that the template continues with wins, among those that start
// with the same character.
var numKeywords = []struct {
	name string
	id   numKeyID
}{
	{",", numComma}, {".", numDec}, {"0", num0}, {"9", num9}, {"B", numB}, {"C", numC}, {"D", numD},
	{"EEEE", numE}, {"FM", numFM}, {"G", numG}, {"L", numL}, {"MI", numMI}, {"PL", numPL}, {"PR", numPR},
	{"RN", numRN}, {"SG", numSG}, {"SP", numSP}, {"S", numS}, {"TH", numTH}, {"V", numV},
	{"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numE}, {"fm", numFM}, {"g", numG}, {"l", numL},
	{"mi", numMI}, {"pl", numPL}, {"pr", numPR}, {"rn", numLowerRN}, {"sg", numSG}, {"sp", numSP},
	{"s", numS}, {"th", numLowerTH}, {"v", numV},
}

// numNode is one element of a parsed template.
type numNode struct {
	id  numKeyID
	lit string // the character of a numLiteral
}

// numFlags are the template's properties (NUMDesc flags).
type numFlags uint16

const (
	nfDecimal numFlags = 1 << iota
	nfLDecimal
	nfZero
	nfBlank
	nfFillMode
	nfLSign
	nfBracket
	nfMinus
	nfPlus
	nfRoman
	nfMulti
	nfPlusPost
	nfMinusPost
	nfEEEE
)

// Where S puts the sign.
const (
	lsignNone = 0
	lsignPre  = -1
	lsignPost = 1
)

// numDesc describes a number template: its digit positions before (pre)
// and after (post) the decimal point, the V shift (multi), where the
// first and last 0 are, and its flags.
type numDesc struct {
	pre, post, lsign, preLsignNum, multi, zeroStart, zeroEnd int
	flags                                                    numFlags
}

func (d *numDesc) has(f numFlags) bool { return d.flags&f != 0 }

// numTemplate is a parsed number template.
type numTemplate struct {
	nodes []numNode
	desc  numDesc
}

// numTemplateCache keeps parsed templates (they are immutable); it is
// cleared when it grows large.
var numTemplateCache struct {
	sync.Mutex
	m map[string]*numTemplate
}

const numTemplateCacheMax = 256

// parseNumTemplate parses a number template, or fails with PostgreSQL's
// error for a contradictory one.
func parseNumTemplate(format string) (*numTemplate, error) {
	numTemplateCache.Lock()
	t, ok := numTemplateCache.m[format]
	numTemplateCache.Unlock()
	if ok {
		return t, nil
	}
	t = &numTemplate{}
	for i := 0; i < len(format); {
		if id, n := numKeyword(format[i:]); n > 0 {
			if err := t.desc.add(id); err != nil {
				return nil, err
			}
			t.nodes = append(t.nodes, numNode{id: id})
			i += n
			continue
		}
		i = t.literal(format, i)
	}
	numTemplateCache.Lock()
	if numTemplateCache.m == nil || len(numTemplateCache.m) >= numTemplateCacheMax {
		numTemplateCache.m = map[string]*numTemplate{}
	}
	numTemplateCache.m[format] = t
	numTemplateCache.Unlock()
	return t, nil
}

// numKeyword returns the pattern s starts with and its length (0 if
// none).
func numKeyword(s string) (numKeyID, int) {
	for _, k := range numKeywords {
		if k.name[0] == s[0] && strings.HasPrefix(s, k.name) {
			return k.id, len(k.name)
		}
	}
	return 0, 0
}

// literal adds the literal text at format[i:] (a quoted string, or one
// character) and returns the index after it.
func (t *numTemplate) literal(format string, i int) int {
	if format[i] == '"' {
		for i++; i < len(format); {
			if format[i] == '"' {
				return i + 1
			}
			if format[i] == '\\' && i+1 < len(format) {
				i++
			}
			n := charLen(format[i:])
			t.nodes = append(t.nodes, numNode{lit: format[i : i+n]})
			i += n
		}
		return i
	}
	if format[i] == '\\' && i+1 < len(format) && format[i+1] == '"' {
		i++
	}
	n := charLen(format[i:])
	t.nodes = append(t.nodes, numNode{lit: format[i : i+n]})
	return i + n
}

// charLen is the byte length of the character s starts with.
func charLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return max(n, 1)
}

func numFormatError(msg string) *pgerr.Error {
	return pgerr.New(pgerr.SyntaxError, "%s", msg)
}

// add records a pattern in the description (NUMDesc_prepare).
func (d *numDesc) add(id numKeyID) error {
	if d.has(nfEEEE) && id != numE {
		return numFormatError(`"EEEE" must be the last pattern used`)
	}
	switch id {
	case num9:
		if d.has(nfBracket) {
			return numFormatError(`"9" must be ahead of "PR"`)
		}
		switch {
		case d.has(nfMulti):
			d.multi++
		case d.has(nfDecimal):
			d.post++
		default:
			d.pre++
		}
	case num0:
		if d.has(nfBracket) {
			return numFormatError(`"0" must be ahead of "PR"`)
		}
		if !d.has(nfZero) && !d.has(nfDecimal) {
			d.flags |= nfZero
			d.zeroStart = d.pre + 1
		}
		if d.has(nfDecimal) {
			d.post++
		} else {
			d.pre++
		}
		d.zeroEnd = d.pre + d.post
	case numB:
		if d.pre == 0 && d.post == 0 && !d.has(nfZero) {
			d.flags |= nfBlank
		}
	case numD, numDec:
		if id == numD {
			d.flags |= nfLDecimal
		}
		if d.has(nfDecimal) {
			return numFormatError("multiple decimal points")
		}
		if d.has(nfMulti) {
			return numFormatError(`cannot use "V" and decimal point together`)
		}
		d.flags |= nfDecimal
	case numFM:
		d.flags |= nfFillMode
	default:
		return d.addSign(id)
	}
	return nil
}

// addSign records the sign, roman, V and EEEE patterns.
func (d *numDesc) addSign(id numKeyID) error {
	switch id {
	case numS:
		if d.has(nfLSign) {
			return numFormatError(`cannot use "S" twice`)
		}
		if d.has(nfPlus) || d.has(nfMinus) || d.has(nfBracket) {
			return numFormatError(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.has(nfDecimal) {
			d.lsign, d.preLsignNum = lsignPre, d.pre
			d.flags |= nfLSign
		} else if d.lsign == lsignNone {
			d.lsign = lsignPost
			d.flags |= nfLSign
		}
	case numMI, numPL, numSG:
		if d.has(nfLSign) {
			return numFormatError(map[numKeyID]string{numMI: `cannot use "S" and "MI" together`,
				numPL: `cannot use "S" and "PL" together`, numSG: `cannot use "S" and "SG" together`}[id])
		}
		if id != numPL {
			d.flags |= nfMinus
		}
		if id != numMI {
			d.flags |= nfPlus
		}
		if id == numMI && d.has(nfDecimal) {
			d.flags |= nfMinusPost
		}
		if id == numPL && d.has(nfDecimal) {
			d.flags |= nfPlusPost
		}
	case numPR:
		if d.has(nfLSign) || d.has(nfPlus) || d.has(nfMinus) {
			return numFormatError(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flags |= nfBracket
	case numRN, numLowerRN:
		d.flags |= nfRoman
	case numV:
		if d.has(nfDecimal) {
			return numFormatError(`cannot use "V" and decimal point together`)
		}
		d.flags |= nfMulti
	case numE:
		return d.addEEEE()
	}
	return nil
}

func (d *numDesc) addEEEE() error {
	if d.has(nfEEEE) {
		return numFormatError(`cannot use "EEEE" twice`)
	}
	if d.flags&(nfBlank|nfFillMode|nfLSign|nfBracket|nfMinus|nfPlus|nfRoman|nfMulti) != 0 {
		e := numFormatError(`"EEEE" is incompatible with other formats`)
		e.Detail = `"EEEE" may only be used together with digit and decimal point patterns.`
		return e
	}
	d.flags |= nfEEEE
	return nil
}
