package expr

import (
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// castContext is where a conversion happens; each cast is allowed from
// some context on (pg_cast.castcontext).
type castContext uint8

const (
	ctxImplicit castContext = iota // inside expressions, to match operators
	ctxAssign                      // storing into a column
	ctxExplicit                    // CAST(x AS t), x::t
)

// convertFn converts one non-NULL value.
type convertFn func(types.Datum) (types.Datum, error)

// castExpr converts its input to another type.
type castExpr struct {
	e        Expr
	to       types.Type
	fn       convertFn
	implicit bool
	explicit bool // CAST or :: (neither implicit nor assignment)
}

func (c *castExpr) Type() types.Type { return c.to }
func (c *castExpr) Children() []Expr { return []Expr{c.e} }

func (c *castExpr) WithChildren(ch []Expr) Expr {
	n := *c
	n.e = ch[0]
	return &n
}

func (c *castExpr) Eval(row []types.Datum) (types.Datum, error) {
	v, err := c.e.Eval(row)
	if err != nil || v == nil {
		return nil, err
	}
	return c.fn(v)
}

func (c *castExpr) String() string {
	if c.implicit {
		return c.e.String()
	}
	return "CAST(" + c.e.String() + " AS " + c.to.String() + ")"
}

// cast builds an explicit (assign=false) or assignment cast of e to t.
func cast(e Expr, t types.Type, assign bool) (Expr, error) {
	ctx := ctxExplicit
	if assign {
		ctx = ctxAssign
	}
	return castIn(e, t, ctx)
}

// coerce converts e implicitly to t (for operator and function arguments).
func coerce(e Expr, t types.Type) (Expr, error) { return castIn(e, t, ctxImplicit) }

func castIn(e Expr, t types.Type, ctx castContext) (Expr, error) {
	from := e.Type()
	if from == t || (from.ID == t.ID && !hasTypmod(t) && ctx == ctxImplicit) {
		return e, nil
	}
	if c, ok := e.(*Const); ok && from.ID == types.IDUnknown {
		return constFromLiteral(c, t, ctx)
	}
	level, ok := castLevel(from.ID, t.ID)
	if !ok || level > ctx {
		return nil, castError(from, t, ctx)
	}
	if from.ID == types.IDArray && t.ID == types.IDArray && from.Elem != t.Elem && from.Elem != types.IDUnknown {
		// An array converts as its elements do (arrayConverter), which
		// is decided now: text[] is no int[] in an assignment (42804,
		// as PostgreSQL's), even when all its elements are NULL.
		level, ok := castLevel(from.Elem, t.Elem)
		if !ok || level > max(ctx, ctxAssign) {
			return nil, castError(from, t, ctx)
		}
	}
	fn := converter(from, t, ctx == ctxExplicit)
	return &castExpr{e: e, to: t, fn: fn, implicit: ctx == ctxImplicit, explicit: ctx == ctxExplicit}, nil
}

// hasTypmod reports whether t carries a length, precision or scale that
// conversions must enforce.
func hasTypmod(t types.Type) bool { return t.Width > 0 || t.Precision > 0 }

// constFromLiteral types an untyped literal (or NULL) as t, parsing it now
// so that a bad literal fails when the expression is built.
func constFromLiteral(c *Const, t types.Type, ctx castContext) (Expr, error) {
	if c.Value == nil {
		return NewConst(nil, t), nil
	}
	s, _ := c.Value.(string)
	v, err := parseLiteral(s, t, ctx == ctxExplicit)
	if err != nil {
		return nil, err
	}
	nc := NewConst(v, t)
	if zoneParsed(t) {
		nc.lit = s
	}
	return nc, nil
}

// parseLiteral reads text as a value of t; an explicit cast to varchar(n)
// truncates instead of failing.
func parseLiteral(s string, t types.Type, explicit bool) (types.Datum, error) {
	switch t.ID {
	case types.IDVarchar:
		return types.CheckVarchar(s, t, explicit)
	case types.IDBpchar:
		return types.CheckBpchar(s, t, explicit)
	}
	return types.Parse(s, t)
}

func castError(from, to types.Type, ctx castContext) error {
	if ctx == ctxAssign {
		return &pgerr.Error{Code: pgerr.DatatypeMismatch,
			Message: fmt.Sprintf("column is of type %s but expression is of type %s", to, from),
			Hint:    "You will need to rewrite or cast the expression."}
	}
	return pgerr.New(codeCannotCoerce, "cannot cast type %s to %s", from, to)
}

// castLevel returns the least context a cast from -> to is allowed in, and
// whether the cast exists at all.
func castLevel(from, to types.ID) (castContext, bool) {
	if level, ok, decided := extCastLevel(from, to); decided {
		return level, ok
	}
	switch {
	case implicitCast(from, to):
		return ctxImplicit, true
	case category(from) == catNumeric && category(to) == catNumeric,
		category(from) == catDateTime && category(to) == catDateTime,
		category(to) == catString:
		return ctxAssign, true
	case category(from) == catString,
		from == types.IDInt32 && to == types.IDBool,
		from == types.IDBool && to == types.IDInt32:
		return ctxExplicit, true
	}
	return 0, false
}

// converter returns the function converting values of from to to.
func converter(from, to types.Type, explicit bool) convertFn {
	if fn := extConverter(from, to, explicit); fn != nil {
		return fn
	}
	switch {
	case category(from.ID) == catString || from.ID == types.IDUnknown:
		return func(v types.Datum) (types.Datum, error) { return parseLiteral(v.(string), to, explicit) }
	case category(to.ID) == catString:
		return toText(from, to, explicit)
	case from.ID == types.IDBool:
		return func(v types.Datum) (types.Datum, error) { return boolToInt(v.(bool)), nil }
	case to.ID == types.IDBool:
		return func(v types.Datum) (types.Datum, error) { return v.(int64) != 0, nil }
	case category(from.ID) == catNumeric:
		return numberConverter(from, to)
	case category(from.ID) == catDateTime:
		return dateTimeConverter(from.ID, to.ID)
	}
	return func(v types.Datum) (types.Datum, error) { return v, nil }
}

func boolToInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// toText renders values as text (booleans as true/false, as booltext
// does), then enforces a varchar length.
func toText(from, to types.Type, explicit bool) convertFn {
	return func(v types.Datum) (types.Datum, error) {
		var s string
		if b, ok := v.(bool); ok {
			s = strconv.FormatBool(b)
		} else {
			s = types.Format(v, from)
		}
		switch from.ID {
		case types.IDBpchar:
			s = types.BpcharTrim(s) // rtrim1: bpchar's trailing blanks do not carry over
		case types.IDInet, types.IDCidr:
			s = types.FormatInet(v.(string), true) // text(inet): the netmask always
		}
		switch to.ID {
		case types.IDVarchar:
			return types.CheckVarchar(s, to, explicit)
		case types.IDBpchar:
			return types.CheckBpchar(s, to, explicit)
		}
		return s, nil
	}
}

// numberConverter converts between number types with Postgres's rounding
// and range checks.
func numberConverter(from, to types.Type) convertFn {
	switch {
	case to.IsInteger():
		return func(v types.Datum) (types.Datum, error) { return toInt(v, to) }
	case to.ID == types.IDFloat32:
		return func(v types.Datum) (types.Datum, error) { return toFloat32(toFloat(v)) }
	case to.ID == types.IDFloat64:
		return func(v types.Datum) (types.Datum, error) { return toFloat(v), nil }
	}
	return func(v types.Datum) (types.Datum, error) {
		d, err := toNumeric(v, from)
		if err != nil {
			return nil, err
		}
		return types.ApplyTypmod(d, to)
	}
}

// intRangeError is the error of an integer result out of t's range.
func intRangeError(t types.Type) error {
	return pgerr.New(pgerr.NumericOutOfRange, "%s out of range", t.String())
}

// toInt converts a number to integer type t: floats round half to even
// (rint), numerics half away from zero.
func toInt(v types.Datum, t types.Type) (types.Datum, error) {
	switch x := v.(type) {
	case int64:
		if !types.IntFits(x, t) {
			return nil, intRangeError(t)
		}
		return x, nil
	case float64:
		r := math.RoundToEven(x)
		if math.IsNaN(r) || r < -9.223372036854775808e18 || r >= 9.223372036854775808e18 || !types.IntFits(int64(r), t) {
			return nil, intRangeError(t)
		}
		return int64(r), nil
	case *apd.Decimal:
		return numericToInt(x, t)
	}
	return nil, fmt.Errorf("expr: %T is not a number", v)
}

func numericToInt(d *apd.Decimal, t types.Type) (types.Datum, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert NaN to %s", t)
	case apd.Infinite:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot convert infinity to %s", t)
	}
	r := types.RoundNumeric(d, 0)
	n, err := r.Int64()
	if err != nil || !types.IntFits(n, t) {
		return nil, intRangeError(t)
	}
	return n, nil
}

// toFloat converts any number to float64 (numerics correctly rounded).
func toFloat(v types.Datum) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case *apd.Decimal:
		return numericToFloat(x)
	}
	return math.NaN()
}

func numericToFloat(d *apd.Decimal) float64 {
	switch d.Form {
	case apd.Finite:
		f, err := strconv.ParseFloat(d.Text('e'), 64)
		if err != nil && !math.IsInf(f, 0) {
			return math.NaN()
		}
		return f
	case apd.Infinite:
		if d.Negative {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	return math.NaN()
}

// toFloat32 rounds to real precision, failing on overflow and underflow.
func toFloat32(f float64) (types.Datum, error) {
	r := float32(f)
	if math.IsInf(float64(r), 0) && !math.IsInf(f, 0) {
		return nil, errFloatOverflow
	}
	if r == 0 && f != 0 {
		return nil, errFloatUnderflow
	}
	return float64(r), nil
}

var (
	errFloatOverflow  = pgerr.New(pgerr.NumericOutOfRange, "value out of range: overflow")
	errFloatUnderflow = pgerr.New(pgerr.NumericOutOfRange, "value out of range: underflow")
)

// toNumeric converts a number of type from to numeric. Floats go through
// their decimal text with 15 (real: 6) significant digits, as Postgres's
// float8_numeric does.
func toNumeric(v types.Datum, from types.Type) (*apd.Decimal, error) {
	switch x := v.(type) {
	case int64:
		return apd.New(x, 0), nil
	case *apd.Decimal:
		return x, nil
	case float64:
		switch {
		case math.IsNaN(x):
			return &apd.Decimal{Form: apd.NaN}, nil
		case math.IsInf(x, 0):
			return &apd.Decimal{Form: apd.Infinite, Negative: x < 0}, nil
		}
		digits := 15
		if from.ID == types.IDFloat32 {
			digits = 6
		}
		return types.ParseNumeric(strconv.FormatFloat(x, 'g', digits, 64), types.TNumeric)
	}
	return nil, fmt.Errorf("expr: %T is not a number", v)
}

// dateTimeConverter converts between date, timestamp and timestamptz (the
// session time zone is UTC, so timestamp and timestamptz share values).
func dateTimeConverter(from, to types.ID) convertFn {
	switch {
	case from == types.IDDate:
		return func(v types.Datum) (types.Datum, error) { return dateToTimestamp(v.(types.Date)) }
	case to == types.IDDate:
		return func(v types.Datum) (types.Datum, error) { return timestampToDate(v.(types.Timestamp)), nil }
	}
	return func(v types.Datum) (types.Datum, error) { return v, nil }
}

func dateToTimestamp(d types.Date) (types.Datum, error) {
	switch d {
	case types.DateInfinity:
		return types.TimestampInfinity, nil
	case types.DateNegInfinity:
		return types.TimestampNegInfinity, nil
	}
	ts := types.Timestamp(int64(d) * types.MicrosPerDay)
	if !types.TimestampValid(ts) {
		return nil, errTimestampRange
	}
	return ts, nil
}

func timestampToDate(ts types.Timestamp) types.Date {
	switch ts {
	case types.TimestampInfinity:
		return types.DateInfinity
	case types.TimestampNegInfinity:
		return types.DateNegInfinity
	}
	days, _ := types.SplitTimestamp(ts)
	return types.Date(days)
}

var (
	errTimestampRange = pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
	errDateRange      = pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
	errIntervalRange  = pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
)
