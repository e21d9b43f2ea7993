package expr

import (
	"strings"
	"sync"
)

// Date/time templates as PostgreSQL 15 parses them for to_timestamp and
// to_date (formatting.c's DCH keywords): patterns matched longest first
// among those starting with the same character, each optionally
// prefixed by FM (fill mode: variable width) or TM (translation: names
// are English here) and followed by TH/th (an ordinal suffix) or SP;
// "..." quotes literal text; other characters are separators
// (printable ASCII that is not a letter or digit), spaces, or literal
// characters.

// dchPat names a date/time pattern; several spellings share one.
type dchPat uint8

const (
	dchAD     dchPat = iota + 1 // AD BC ad bc
	dchADDots                   // A.D. B.C. a.d. b.c.
	dchAM                       // AM PM am pm
	dchAMDots                   // A.M. P.M. a.m. p.m.
	dchCC
	dchDAY // DAY Day day
	dchDDD
	dchDD
	dchDY // DY Dy dy
	dchD
	dchFF // FF1 .. FF6
	dchFX
	dchHH24
	dchHH // HH HH12
	dchIDDD
	dchIDay
	dchIW
	dchIYYY
	dchIYY
	dchIY
	dchI
	dchJ
	dchMI
	dchMM
	dchMONTH // MONTH Month month
	dchMON   // MON Mon mon
	dchMS
	dchOF
	dchQ
	dchRM // RM rm
	dchSSSS
	dchSS
	dchTZH
	dchTZM
	dchTZ
	dchUS
	dchWW
	dchW
	dchYCommaYYY
	dchYYYY
	dchYYY
	dchYY
	dchY
)

// Date conventions a pattern belongs to: mixing them is an error.
const (
	dateModeNone = iota
	dateModeGregorian
	dateModeISOWeek
)

// dchKey is one spelling of a pattern.
type dchKey struct {
	name  string
	id    dchPat
	digit bool // reads digits (for the width of the field before it)
	mode  uint8
	arg   int // FFn: n; HH12 vs HH: 12
}

// dchKeys are PostgreSQL's patterns in its search order.
var dchKeys = func() []dchKey {
	g, i := uint8(dateModeGregorian), uint8(dateModeISOWeek)
	upper := []dchKey{
		{"A.D.", dchADDots, false, 0, 0}, {"A.M.", dchAMDots, false, 0, 0}, {"AD", dchAD, false, 0, 0}, {"AM", dchAM, false, 0, 0},
		{"B.C.", dchADDots, false, 0, 0}, {"BC", dchAD, false, 0, 0}, {"CC", dchCC, true, 0, 0},
		{"DAY", dchDAY, false, 0, 0}, {"DDD", dchDDD, true, g, 0}, {"DD", dchDD, true, g, 0}, {"DY", dchDY, false, 0, 0},
		{"Day", dchDAY, false, 0, 0}, {"Dy", dchDY, false, 0, 0}, {"D", dchD, true, g, 0},
		{"FF1", dchFF, true, 0, 1}, {"FF2", dchFF, true, 0, 2}, {"FF3", dchFF, true, 0, 3}, {"FF4", dchFF, true, 0, 4},
		{"FF5", dchFF, true, 0, 5}, {"FF6", dchFF, true, 0, 6}, {"FX", dchFX, false, 0, 0},
		{"HH24", dchHH24, true, 0, 0}, {"HH12", dchHH, true, 0, 12}, {"HH", dchHH, true, 0, 0},
		{"IDDD", dchIDDD, true, i, 0}, {"ID", dchIDay, true, i, 0}, {"IW", dchIW, true, i, 0}, {"IYYY", dchIYYY, true, i, 0},
		{"IYY", dchIYY, true, i, 0}, {"IY", dchIY, true, i, 0}, {"I", dchI, true, i, 0}, {"J", dchJ, true, 0, 0},
		{"MI", dchMI, true, 0, 0}, {"MM", dchMM, true, g, 0}, {"MONTH", dchMONTH, false, g, 0}, {"MON", dchMON, false, g, 0},
		{"MS", dchMS, true, 0, 0}, {"Month", dchMONTH, false, g, 0}, {"Mon", dchMON, false, g, 0}, {"OF", dchOF, false, 0, 0},
		{"P.M.", dchAMDots, false, 0, 0}, {"PM", dchAM, false, 0, 0}, {"Q", dchQ, true, 0, 0}, {"RM", dchRM, false, g, 0},
		{"SSSSS", dchSSSS, true, 0, 0}, {"SSSS", dchSSSS, true, 0, 0}, {"SS", dchSS, true, 0, 0},
		{"TZH", dchTZH, false, 0, 0}, {"TZM", dchTZM, true, 0, 0}, {"TZ", dchTZ, false, 0, 0}, {"US", dchUS, true, 0, 0},
		{"WW", dchWW, true, g, 0}, {"W", dchW, true, g, 0}, {"Y,YYY", dchYCommaYYY, true, g, 0}, {"YYYY", dchYYYY, true, g, 0},
		{"YYY", dchYYY, true, g, 0}, {"YY", dchYY, true, g, 0}, {"Y", dchY, true, g, 0},
	}
	keys := append([]dchKey(nil), upper...)
	for _, k := range upper {
		// The lower-case spellings: every pattern but the mixed-case
		// names, which have their own.
		if k.name == "Day" || k.name == "Dy" || k.name == "Month" || k.name == "Mon" {
			continue
		}
		k.name = strings.ToLower(k.name)
		keys = append(keys, k)
	}
	return keys
}()

// dchNodeKind says what a template node is.
type dchNodeKind uint8

const (
	dchAction dchNodeKind = iota
	dchChar
	dchSeparator
	dchSpace
)

// dchNode is one element of a parsed date/time template.
type dchNode struct {
	kind dchNodeKind
	key  *dchKey
	fm   bool   // FM prefix
	th   bool   // TH or th suffix
	char string // the character of a non-action node
}

var dchTemplateCache struct {
	sync.Mutex
	m map[string][]dchNode
}

// parseDCHTemplate parses a date/time template (never fails: anything
// that is not a pattern is a character).
func parseDCHTemplate(format string) []dchNode {
	dchTemplateCache.Lock()
	nodes, ok := dchTemplateCache.m[format]
	dchTemplateCache.Unlock()
	if ok {
		return nodes
	}
	for i := 0; i < len(format); {
		fm := false
		if p := format[i:min(i+2, len(format))]; p == "FM" || p == "fm" || p == "TM" || p == "tm" {
			fm = p == "FM" || p == "fm"
			i += 2
		}
		if i >= len(format) {
			break
		}
		if k := dchKeyword(format[i:]); k != nil {
			n := dchNode{kind: dchAction, key: k, fm: fm}
			i += len(k.name)
			if p := format[i:min(i+2, len(format))]; p == "TH" || p == "th" || p == "SP" {
				n.th = p == "TH" || p == "th"
				i += 2
			}
			nodes = append(nodes, n)
			continue
		}
		nodes, i = dchLiteral(nodes, format, i)
	}
	dchTemplateCache.Lock()
	if dchTemplateCache.m == nil || len(dchTemplateCache.m) >= numTemplateCacheMax {
		dchTemplateCache.m = map[string][]dchNode{}
	}
	dchTemplateCache.m[format] = nodes
	dchTemplateCache.Unlock()
	return nodes
}

// dchKeyword returns the pattern s starts with, or nil.
func dchKeyword(s string) *dchKey {
	for i := range dchKeys {
		if k := &dchKeys[i]; k.name[0] == s[0] && strings.HasPrefix(s, k.name) {
			return k
		}
	}
	return nil
}

// dchLiteral adds the non-pattern text at format[i:] and returns the
// index after it.
func dchLiteral(nodes []dchNode, format string, i int) ([]dchNode, int) {
	if format[i] == '"' {
		for i++; i < len(format); {
			if format[i] == '"' {
				return nodes, i + 1
			}
			if format[i] == '\\' && i+1 < len(format) {
				i++
			}
			n := charLen(format[i:])
			nodes = append(nodes, dchNode{kind: dchChar, char: format[i : i+n]})
			i += n
		}
		return nodes, i
	}
	if format[i] == '\\' && i+1 < len(format) && format[i+1] == '"' {
		i++
	}
	n := charLen(format[i:])
	kind := dchChar
	switch c := format[i]; {
	case isSeparatorChar(c):
		kind = dchSeparator
	case isCSpace(c):
		kind = dchSpace
	}
	return append(nodes, dchNode{kind: kind, char: format[i : i+n]}), i + n
}

// isSeparatorChar reports whether c is printable ASCII but not a letter
// or digit.
func isSeparatorChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9')
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
