package types

import (
	"slices"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Array values, as Postgres's array_in and array_out read and write them.
// An array has up to MaxArrayDims dimensions, each with lower bound 1
// (streamdb refuses other bounds), and its elements in row-major order:
//
//	{}                      the empty array: no dimensions
//	{1,NULL,"a b"}          one dimension of 3
//	{{1,2},{3,4}}           two dimensions, 2 by 2
//
// Sub-arrays of one level must have one length; the text form may open
// with the dimensions ("[1:2][1:2]={{1,2},{3,4}}"), which must match.

// MaxArrayDims is the most dimensions an array has (Postgres's MAXDIM).
const MaxArrayDims = 6

// ArrayValue is an array with its shape.
type ArrayValue struct {
	// Dims are the lengths of the dimensions, outermost first; none for
	// the empty array.
	Dims []int
	// Elems are the elements in row-major order (the last subscript
	// varies fastest).
	Elems []Datum
}

// OneDim is the one-dimensional array of elems ({} when there are none).
func OneDim(elems []Datum) ArrayValue {
	if len(elems) == 0 {
		return ArrayValue{}
	}
	return ArrayValue{Dims: []int{len(elems)}, Elems: elems}
}

// NDims is the number of dimensions of a.
func (a ArrayValue) NDims() int { return len(a.Dims) }

// ParseArrayValue reads the text form of an array, each element parsed as
// elem.
func ParseArrayValue(s string, elem Type) (ArrayValue, error) { return parseArrayIn(s, elem, nil) }

// ParseArray reads the text form of an array into all its elements, in
// row-major order whatever its dimensions, as Postgres's
// deconstruct_array does (unnest, ANY, array_to_string).
func ParseArray(s string, elem Type) ([]Datum, error) {
	a, err := parseArrayIn(s, elem, nil)
	return a.Elems, err
}

// parseArrayIn is ParseArrayValue with timestamptz elements read in zone z.
func parseArrayIn(s string, elem Type, z *Zone) (ArrayValue, error) {
	p := &arrayParser{s: strings.TrimSpace(s), elem: elem, zone: z, leaf: -1}
	return p.parse()
}

type arrayParser struct {
	s    string
	i    int
	elem Type
	zone *Zone
	dims [MaxArrayDims]int // the length of each level, 0 until one is read
	leaf int               // the depth of the innermost level once one is read, else -1
	out  []Datum
}

func (p *arrayParser) malformed(detail string) error {
	e := pgerr.New(pgerr.InvalidTextRep, "malformed array literal: %q", p.s)
	e.Detail = detail
	return e
}

func (p *arrayParser) parse() (ArrayValue, error) {
	declared, err := p.decoration()
	if err != nil {
		return ArrayValue{}, err
	}
	if !p.eat('{') {
		return ArrayValue{}, p.malformed(`Array value must start with "{" or dimension information.`)
	}
	if err := p.level(0); err != nil {
		return ArrayValue{}, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return ArrayValue{}, p.malformed("Junk after closing right brace.")
	}
	dims := p.dims[:p.leaf+1]
	if len(dims) == 0 {
		dims = nil
	}
	if declared != nil && !slices.Equal(declared, dims) {
		return ArrayValue{}, p.malformed("Specified array dimensions do not match array contents.")
	}
	return ArrayValue{Dims: dims, Elems: p.out}, nil
}

// decoration reads the optional "[1:n][1:m]=" before the braces and
// returns the lengths it gives (nil when there is none).
func (p *arrayParser) decoration() ([]int, error) {
	var dims []int
	for p.eat('[') {
		lo, hi := 1, 0
		n, ok := p.int()
		if !ok {
			return nil, p.malformed(`"[" must introduce explicitly-specified array dimensions.`)
		}
		if p.eat(':') {
			lo = n
			if hi, ok = p.int(); !ok {
				return nil, p.malformed("Missing array dimension value.")
			}
		} else {
			hi = n
		}
		if !p.eat(']') {
			return nil, p.malformed(`Missing "]" after array dimensions.`)
		}
		if hi < lo {
			return nil, pgerr.New("2202E", "upper bound cannot be less than lower bound")
		}
		if lo != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "array lower bounds other than 1 are not supported")
		}
		dims = append(dims, hi-lo+1)
		p.skipSpace()
	}
	if dims == nil {
		return nil, nil
	}
	if !p.eat('=') {
		return nil, p.malformed(`Missing "=" after array dimensions.`)
	}
	p.skipSpace()
	return dims, nil
}

// int reads a signed decimal integer.
func (p *arrayParser) int() (int, bool) {
	start := p.i
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] == '+') {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	return n, err == nil
}

// level reads the items of one level after its "{", through its "}".
func (p *arrayParser) level(depth int) error {
	if depth >= MaxArrayDims {
		return pgerr.New("54000", "number of array dimensions (%d) exceeds the maximum allowed (%d)", depth+1, MaxArrayDims)
	}
	p.skipSpace()
	if p.eat('}') {
		if depth > 0 {
			return p.malformed(`Unexpected "}" character.`)
		}
		return nil
	}
	n, nested := 0, false
	for ; ; n++ {
		p.skipSpace()
		switch {
		case p.eat('{'):
			if n > 0 && !nested {
				return p.malformed(`Unexpected "{" character.`)
			}
			nested = true
			if err := p.level(depth + 1); err != nil {
				return err
			}
		case nested:
			return p.malformed("Unexpected array element.")
		default:
			v, err := p.element()
			if err != nil {
				return err
			}
			p.out = append(p.out, v)
		}
		p.skipSpace()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return p.malformed("Unexpected array element.")
		}
	}
	return p.shape(depth, n+1, nested)
}

// shape records that a level at depth has n items (sub-arrays when
// nested), and checks it against the levels read before.
func (p *arrayParser) shape(depth, n int, nested bool) error {
	mismatch := p.malformed("Multidimensional arrays must have sub-arrays with matching dimensions.")
	if !nested {
		if p.leaf >= 0 && p.leaf != depth {
			return mismatch
		}
		p.leaf = depth
	} else if p.leaf >= 0 && depth >= p.leaf {
		return mismatch
	}
	switch p.dims[depth] {
	case 0:
		p.dims[depth] = n
	case n:
	default:
		return mismatch
	}
	return nil
}

func (p *arrayParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *arrayParser) skipSpace() {
	for p.i < len(p.s) && isArraySpace(p.s[p.i]) {
		p.i++
	}
}

func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// element reads one element: quoted, or unquoted up to , or }.
func (p *arrayParser) element() (Datum, error) {
	var b strings.Builder
	quoted := p.eat('"')
	for {
		if p.i >= len(p.s) {
			return nil, p.malformed("Unexpected end of input.")
		}
		c := p.s[p.i]
		switch {
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, p.malformed("Unexpected end of input.")
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			continue
		case quoted && c == '"':
			p.i++
			return ParseIn(b.String(), p.elem, p.zone)
		case !quoted && (c == ',' || c == '}'):
			v := strings.TrimRight(b.String(), " \t\n\r\v\f")
			if v == "" {
				return nil, p.malformed("Unexpected array element.")
			}
			if strings.EqualFold(v, "null") {
				return nil, nil
			}
			return ParseIn(v, p.elem, p.zone)
		case !quoted && (c == '"' || c == '{'):
			return nil, p.malformed("Unexpected array element.")
		}
		b.WriteByte(c)
		p.i++
	}
}

// FormatArray renders the one-dimensional array of elems, of type elem,
// as Postgres's array_out does.
func FormatArray(elems []Datum, elem Type) string { return FormatArrayValue(OneDim(elems), elem) }

// FormatArrayIn is FormatArray with timestamptz elements rendered in zone z.
func FormatArrayIn(elems []Datum, elem Type, z *Zone) string {
	return FormatArrayValueIn(OneDim(elems), elem, z)
}

// FormatArrayValue renders a as Postgres's array_out does.
func FormatArrayValue(a ArrayValue, elem Type) string { return FormatArrayValueIn(a, elem, nil) }

// FormatArrayValueIn is FormatArrayValue with timestamptz elements
// rendered in zone z.
func FormatArrayValueIn(a ArrayValue, elem Type, z *Zone) string {
	var b strings.Builder
	if len(a.Dims) == 0 {
		return "{}"
	}
	next := 0
	var level func(d int)
	level = func(d int) {
		b.WriteByte('{')
		for i := 0; i < a.Dims[d]; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if d+1 < len(a.Dims) {
				level(d + 1)
				continue
			}
			e := a.Elems[next]
			next++
			if e == nil {
				b.WriteString("NULL")
				continue
			}
			writeArrayElem(&b, FormatIn(e, elem, z))
		}
		b.WriteByte('}')
	}
	level(0)
	return b.String()
}

func writeArrayElem(b *strings.Builder, s string) {
	if !needsArrayQuotes(s) {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
}

func needsArrayQuotes(s string) bool {
	if s == "" || strings.EqualFold(s, "null") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`{}",\`, s[i]) >= 0 || isArraySpace(s[i]) {
			return true
		}
	}
	return false
}
