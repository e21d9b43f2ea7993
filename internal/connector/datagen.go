// Package connector holds streamdb's built-in source connectors: generators
// that produce a source's rows. A generator is deterministic: row i is a
// function of the connector's options and i alone, so a source that
// persists the index of its next row at every checkpoint regenerates
// exactly the rows it had not committed after a failure or restart, and
// every row reaches the graph exactly once.
package connector

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Column is a source column a generator fills.
type Column struct {
	Name string
	Type types.Type
}

// Generator produces the rows of a source.
type Generator interface {
	// Row fills dst (one Datum per column) with row i and returns it.
	Row(i int64, dst []types.Datum) []types.Datum
	// Limit is how many rows the generator produces in all; -1: no end.
	Limit() int64
	// RowsPerSecond is the rate the connector is configured to produce
	// at; 0: as fast as the graph takes them.
	RowsPerSecond() int64
}

// Connector option keys.
const (
	OptConnector = "connector"
	// Datagen options.
	optRowsPerSecond = "datagen.rows.per.second"
	optSplitNum      = "datagen.split.num"
	optRowsTotal     = "datagen.rows.total"
	fieldPrefix      = "fields."
)

// IsConnectorOption reports whether key is a connector option (as opposed
// to a streamdb option such as dml_rate_limit) of CREATE TABLE/SOURCE.
func IsConnectorOption(key string) bool {
	return key == OptConnector || strings.HasPrefix(key, "datagen.") || strings.HasPrefix(key, "nexmark.") ||
		strings.HasPrefix(key, fieldPrefix) || isKafkaOption(key)
}

// New returns the generator the WITH options describe for cols. base is
// the source's creation time, in microseconds since 1970: random
// timestamps are drawn before it, so that they do not depend on when a row
// happens to be generated.
func New(cols []Column, opts map[string]string, base int64) (Generator, error) {
	switch name := strings.ToLower(opts[OptConnector]); name {
	case "datagen":
		return newDatagen(cols, opts, base)
	case "nexmark":
		return newNexmark(cols, opts, base)
	case "":
		return nil, optionError("connector", "", "a source needs a connector option, such as connector = 'datagen'")
	default:
		e := pgerr.New(pgerr.FeatureNotSupported, "connector %q is not supported", opts[OptConnector])
		e.Hint = "The built-in connectors are: datagen, nexmark, kafka."
		return nil, e
	}
}

func optionError(key, value, hint string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for connector option %q: %q", key, value)
	e.Hint = hint
	return e
}

// datagen generates sequence and random columns, as RisingWave's datagen
// connector does: fields.<col>.kind = 'sequence' (start, end) or 'random'
// (min, max, seed; length for strings; max_past for timestamps);
// datagen.rows.per.second (default 10).
type datagen struct {
	fields []field
	limit  int64
	rate   int64
}

type fieldKind uint8

const (
	kindRandom fieldKind = iota
	kindSequence
)

type field struct {
	typ        types.Type
	kind       fieldKind
	start, end float64 // sequence bounds, inclusive
	min, max   float64 // random bounds, inclusive for integers
	seed       uint64
	length     int   // random string length
	base       int64 // random timestamps: the latest value, µs
	maxPast    int64 // random timestamps: how far before base, µs
	scale      int   // numeric digits after the point
}

// DefaultRowsPerSecond is datagen's rate when none is given.
const DefaultRowsPerSecond = 10

func newDatagen(cols []Column, opts map[string]string, base int64) (*datagen, error) {
	g := &datagen{limit: -1, rate: DefaultRowsPerSecond}
	byName := make(map[string]int, len(cols))
	for i, c := range cols {
		byName[c.Name] = i
	}
	// Reject options that name no column or no parameter, so typos show.
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case k == OptConnector:
		case k == optRowsPerSecond:
			n, err := strconv.ParseInt(strings.TrimSpace(opts[k]), 10, 64)
			if err != nil || n < 0 {
				return nil, optionError(k, opts[k], "rows per second is an integer at least 0 (0: as fast as possible).")
			}
			g.rate = n
		case k == optSplitNum:
			if n, err := strconv.Atoi(strings.TrimSpace(opts[k])); err != nil || n < 1 {
				return nil, optionError(k, opts[k], "the number of splits is an integer at least 1.")
			}
		case k == optRowsTotal:
			n, err := strconv.ParseInt(strings.TrimSpace(opts[k]), 10, 64)
			if err != nil || n < 0 {
				return nil, optionError(k, opts[k], "the total number of rows is an integer at least 0.")
			}
			g.limit = n
		case strings.HasPrefix(k, fieldPrefix):
			rest := strings.TrimPrefix(k, fieldPrefix)
			dot := strings.LastIndexByte(rest, '.')
			if dot < 0 {
				return nil, optionError(k, opts[k], "field options are fields.<column>.<parameter>.")
			}
			if _, ok := byName[rest[:dot]]; !ok {
				return nil, pgerr.New(pgerr.UndefinedColumn, "connector option %q names column %q, which does not exist", k, rest[:dot])
			}
			switch rest[dot+1:] {
			case "kind", "start", "end", "min", "max", "seed", "length", "max_past", "max_past_mode":
			default:
				e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized datagen field parameter %q", k)
				e.Hint = "Field parameters are: kind, start, end, min, max, seed, length, max_past, max_past_mode."
				return nil, e
			}
		default:
			e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized datagen option %q", k)
			e.Hint = "datagen options are: datagen.rows.per.second, datagen.rows.total, datagen.split.num, fields.<column>.<parameter>."
			return nil, e
		}
	}
	for _, c := range cols {
		f, err := newField(c, opts, base)
		if err != nil {
			return nil, err
		}
		if f.kind == kindSequence {
			n := int64(f.end-f.start) + 1
			if g.limit < 0 || n < g.limit {
				g.limit = n
			}
		}
		g.fields = append(g.fields, f)
	}
	return g, nil
}

func newField(c Column, opts map[string]string, base int64) (field, error) {
	get := func(p string) (string, bool) {
		v, ok := opts[fieldPrefix+c.Name+"."+p]
		return strings.TrimSpace(v), ok
	}
	f := field{typ: c.Type, min: 0, max: 32767, length: 10, base: base, maxPast: 24 * 3600 * 1e6, scale: 2}
	if c.Type.ID == types.IDNumeric && c.Type.Precision > 0 {
		f.scale = c.Type.Scale
	}
	num := func(p string, dst *float64) error {
		v, ok := get(p)
		if !ok {
			return nil
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return optionError(fieldPrefix+c.Name+"."+p, v, "a number is expected.")
		}
		*dst = x
		return nil
	}
	numeric := isNumber(c.Type)
	kind, _ := get("kind")
	switch strings.ToLower(kind) {
	case "", "random":
		f.kind = kindRandom
	case "sequence":
		if !numeric {
			return f, pgerr.New(pgerr.FeatureNotSupported, "datagen cannot generate a sequence of %s (column %q); sequences are numbers", c.Type, c.Name)
		}
		f.kind, f.start, f.end = kindSequence, 0, 32767
		if err := num("start", &f.start); err != nil {
			return f, err
		}
		if err := num("end", &f.end); err != nil {
			return f, err
		}
		if f.end < f.start {
			return f, optionError(fieldPrefix+c.Name+".end", fmt.Sprint(f.end), "the end of a sequence must not be below its start.")
		}
		return f, checkRange(c, f.start, f.end)
	default:
		return f, optionError(fieldPrefix+c.Name+".kind", kind, "kind is 'random' or 'sequence'.")
	}
	if err := num("min", &f.min); err != nil {
		return f, err
	}
	if err := num("max", &f.max); err != nil {
		return f, err
	}
	if f.max < f.min {
		return f, optionError(fieldPrefix+c.Name+".max", fmt.Sprint(f.max), "max must not be below min.")
	}
	if numeric {
		if err := checkRange(c, f.min, f.max); err != nil {
			return f, err
		}
	}
	if v, ok := get("seed"); ok {
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return f, optionError(fieldPrefix+c.Name+".seed", v, "the seed is an integer.")
		}
		f.seed = uint64(s)
	}
	if v, ok := get("length"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<20 {
			return f, optionError(fieldPrefix+c.Name+".length", v, "the length is an integer from 0 to 1048576.")
		}
		f.length = n
	}
	if c.Type.ID == types.IDVarchar && c.Type.Width > 0 && f.length > c.Type.Width {
		f.length = c.Type.Width
	}
	if v, ok := get("max_past"); ok {
		iv, err := types.ParseInterval(v)
		if err != nil {
			return f, optionError(fieldPrefix+c.Name+".max_past", v, "max_past is an interval, such as '2 hours'.")
		}
		f.maxPast = int64(iv.Months)*30*86400e6 + int64(iv.Days)*86400e6 + iv.Micros
		if f.maxPast < 0 {
			return f, optionError(fieldPrefix+c.Name+".max_past", v, "max_past must not be negative.")
		}
	}
	if v, ok := get("max_past_mode"); ok && !strings.EqualFold(v, "absolute") {
		// Relative mode draws timestamps before the time each row is made,
		// which a replay after a failure could not reproduce.
		e := optionError(fieldPrefix+c.Name+".max_past_mode", v, "only 'absolute' is supported: timestamps are drawn before the source's creation time, so that replays are exact.")
		return f, e
	}
	switch c.Type.ID {
	case types.IDInterval:
		return f, pgerr.New(pgerr.FeatureNotSupported, "datagen cannot generate values of type %s (column %q)", c.Type, c.Name)
	}
	return f, nil
}

func isNumber(t types.Type) bool {
	switch t.ID {
	case types.IDInt16, types.IDInt32, types.IDInt64, types.IDFloat32, types.IDFloat64, types.IDNumeric:
		return true
	}
	return false
}

// checkRange rejects bounds an integer column cannot hold.
func checkRange(c Column, lo, hi float64) error {
	var min, max float64
	switch c.Type.ID {
	case types.IDInt16:
		min, max = math.MinInt16, math.MaxInt16
	case types.IDInt32:
		min, max = math.MinInt32, math.MaxInt32
	case types.IDInt64:
		min, max = -(1 << 63), 1<<63-1024
	default:
		return nil
	}
	if lo < min || hi > max {
		return pgerr.New("22003", "datagen bounds %v..%v are out of range for column %q of type %s", lo, hi, c.Name, c.Type)
	}
	return nil
}

func (g *datagen) Limit() int64         { return g.limit }
func (g *datagen) RowsPerSecond() int64 { return g.rate }

// Row implements Generator.
func (g *datagen) Row(i int64, dst []types.Datum) []types.Datum {
	dst = dst[:0]
	for c := range g.fields {
		dst = append(dst, g.fields[c].value(c, i))
	}
	return dst
}

// value is column c's value in row i.
func (f *field) value(c int, i int64) types.Datum {
	if f.kind == kindSequence {
		return f.number(f.start + float64(i))
	}
	r := mix(f.seed, uint64(c), uint64(i))
	switch f.typ.ID {
	case types.IDBool:
		return r&1 == 1
	case types.IDInt16, types.IDInt32, types.IDInt64:
		lo, hi := int64(f.min), int64(f.max)
		span := uint64(hi-lo) + 1
		if span == 0 { // the whole int64 range
			return int64(r)
		}
		return lo + int64(r%span)
	case types.IDFloat32, types.IDFloat64, types.IDNumeric:
		u := float64(r>>11) / (1 << 53)
		return f.number(f.min + u*(f.max-f.min))
	case types.IDText, types.IDVarchar, types.IDUnknown:
		return randomString(r, f.length)
	case types.IDDate:
		past := int64(r % uint64(f.maxPast/86400e6+1))
		return types.Date(floorDiv(f.base, 86400e6) - past)
	case types.IDTimestamp, types.IDTimestampTZ:
		return types.Timestamp(f.base - int64(r%uint64(f.maxPast+1)))
	}
	return nil
}

// number converts x to the column's type.
func (f *field) number(x float64) types.Datum {
	switch f.typ.ID {
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return int64(math.Round(x))
	case types.IDFloat32:
		return float64(float32(x))
	case types.IDFloat64:
		return x
	case types.IDNumeric:
		d, _, err := apd.NewFromString(strconv.FormatFloat(x, 'f', f.scale, 64))
		if err != nil {
			return nil
		}
		return d
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomString(r uint64, n int) string {
	b := make([]byte, n)
	for k := range b {
		r = splitmix(r)
		b[k] = alphabet[r%uint64(len(alphabet))]
	}
	return string(b)
}

// mix hashes a field's seed, its column and the row index into 64 random
// bits.
func mix(seed, col, i uint64) uint64 {
	return splitmix(splitmix(seed^col*0x9e3779b97f4a7c15) ^ i)
}

// splitmix is SplitMix64's output function.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// ConfiguredRate is the rows per second the options ask the connector
// for (0: unlimited).
func ConfiguredRate(opts map[string]string) int64 {
	if strings.EqualFold(opts[OptConnector], "kafka") {
		return 0 // as fast as the topic fills
	}
	if strings.EqualFold(opts[OptConnector], "nexmark") {
		n, _ := strconv.ParseInt(strings.TrimSpace(opts[optNexRate]), 10, 64)
		return max(n, 0)
	}
	if v, ok := opts[optRowsPerSecond]; ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return DefaultRowsPerSecond
}
