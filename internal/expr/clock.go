package expr

import (
	"context"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The functions of the current time, as PostgreSQL 15 has them:
//
//   - now(), current_timestamp, transaction_timestamp(), current_date and
//     localtimestamp are the time the current transaction started: one
//     value for every row and every call of a statement, and of every
//     statement of a transaction block;
//   - statement_timestamp() is the time the current statement started;
//   - clock_timestamp() is the time it is evaluated at.
//
// As built, each reads the system clock when evaluated. A batch statement
// fixes them once bound (AtInstants, which the binder applies with the
// session's Instants): the first two kinds become constants, and
// clock_timestamp() (and age(x), which is age(current_date, x)) read the
// session's clock. A materialized view refuses them, except now() in a
// temporal filter, where it is each barrier's time (temporal.go).

// clockFuncs are the functions whose value is the time they are
// evaluated at, unless AtInstants fixed it.
var clockFuncs = map[string]bool{
	"now": true, "current_timestamp": true, "transaction_timestamp": true, "statement_timestamp": true,
	"clock_timestamp": true, "current_date": true, "localtimestamp": true, "current_time": true, "localtime": true,
}

// Instants are the times a batch statement's functions of the current
// time read.
type Instants struct {
	// Transaction is when the current transaction started: in a
	// transaction block, its BEGIN's statement; else the statement.
	Transaction types.Timestamp
	// Statement is when the current statement started.
	Statement types.Timestamp
	// Clock is what clock_timestamp() reads (nil: time.Now).
	Clock func() time.Time
	// Ctx is the statement's context, which pg_sleep and its kin wait
	// on (sleep.go); nil: they refuse to run.
	Ctx context.Context
}

// registerClock adds the functions of the current time.
func registerClock() {
	register(nowFn(types.TTimestampTZ), "now", "current_timestamp", "transaction_timestamp", "statement_timestamp",
		"clock_timestamp")
	register(nowFn(types.TDate), "current_date")
	register(nowFn(types.TTimestamp), "localtimestamp")
	register(nowFn(types.TTimeTZ), "current_time")
	register(nowFn(types.TTime), "localtime")
}

// nowFn returns the current time (or date, or local time) at evaluation,
// in UTC (WithZone gives current_date and localtimestamp the session's
// zone).
func nowFn(t types.Type) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		t := t
		if len(args) == 1 && (t.ID == types.IDTime || t.ID == types.IDTimeTZ) {
			p, err := clockPrecision(name, args[0])
			if err != nil {
				return nil, err
			}
			t.Precision, args = p+1, nil
		}
		if len(args) != 0 {
			return nil, functionError(name, exprTypes(args), resolveNone)
		}
		return &call{name: name, typ: t, fn: func([]types.Datum) (types.Datum, error) {
			return clockValue(t, systemNow(), nil), nil
		}}, nil
	}
}

// clockPrecision reads the precision of current_time(p) or localtime(p):
// an integer constant, at most 6 (PostgreSQL reduces a larger one to 6,
// with a warning).
func clockPrecision(name string, arg Expr) (int, error) {
	c, ok := arg.(*Const)
	if !ok || !c.Typ.IsInteger() {
		return 0, functionError(name, []types.Type{arg.Type()}, resolveNone)
	}
	p, ok := c.Value.(int64)
	if !ok {
		return 0, functionError(name, []types.Type{arg.Type()}, resolveNone)
	}
	if p < 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "%s(%d) precision must not be negative", strings.ToUpper(name), p)
	}
	return int(min(p, 6)), nil
}

// clockValue is the value of type t (timestamptz, timestamp, date, time
// or timetz) of the function of the current time that reads the instant
// now, in zone z: current_date, localtimestamp, localtime and
// current_time take its wall clock there.
func clockValue(t types.Type, now types.Timestamp, z *types.Zone) types.Datum {
	local := z.Local(now)
	tod := int64(local) % types.MicrosPerDay
	if tod < 0 {
		tod += types.MicrosPerDay
	}
	switch t.ID {
	case types.IDDate:
		return timestampToDate(local)
	case types.IDTimestamp:
		return local
	case types.IDTime:
		return types.RoundTime(tod, t)
	case types.IDTimeTZ:
		return types.PackTimeTZ(types.RoundTime(tod, t), int32(-z.Offset(now)))
	}
	return now
}

// ReadsClockFunc reports whether the function name (a name Func knows)
// reads the clock when evaluated, unless AtInstants fixed it: the
// functions of the current time, and age(x).
// The sleeping functions (pg_sleep) count too: AtInstants gives them the
// statement's context.
func ReadsClockFunc(name string) bool {
	return clockFuncs[name] || name == "age" || sleepSpans[name] != nil
}

// systemNow is the system clock's time.
func systemNow() types.Timestamp { return types.Timestamp(time.Now().UnixMicro()) }

// ReadsClock returns the name of a function of e that reads the clock
// (now, current_timestamp, current_date, clock_timestamp, ...) or the
// random source (random): its value depends on when, and how often, e is
// evaluated. "" when none.
func ReadsClock(e Expr) string {
	if c, ok := e.(*call); ok && (clockFuncs[c.name] || randomFuncs[c.name]) {
		return c.name
	}
	for _, c := range e.Children() {
		if n := ReadsClock(c); n != "" {
			return n
		}
	}
	return ""
}

// AtInstants returns e with its functions of the current time fixed to
// at: now(), current_timestamp, transaction_timestamp(), current_date and
// localtimestamp (the last two in zone z) become constants of
// at.Transaction, statement_timestamp() one of at.Statement, and
// clock_timestamp() and age(x) read at.Clock and at.Transaction, and
// pg_sleep and its kin wait on at.Ctx. Apply it
// after WithZone (which would give age(x) the system clock again). Nodes
// that call none of them are shared with e.
func AtInstants(e Expr, at *Instants, z *types.Zone) Expr {
	if c, ok := e.(*call); ok {
		if v, ok := at.fixed(c, z); ok {
			return &Const{Value: v, Typ: c.typ}
		}
	}
	e = mapChildren(e, func(c Expr) Expr { return AtInstants(c, at, z) })
	if c, ok := e.(*call); ok {
		if fn := at.clockCall(c, z); fn != nil {
			n := *c
			n.fn = fn
			return &n
		}
	}
	return e
}

// fixed returns the constant value of a call of a function of the
// transaction's or the statement's time; ok is false for other calls.
func (at *Instants) fixed(c *call, z *types.Zone) (types.Datum, bool) {
	if len(c.args) != 0 {
		return nil, false
	}
	switch c.name {
	case "now", "current_timestamp", "transaction_timestamp":
		return at.Transaction, true
	case "statement_timestamp":
		return at.Statement, true
	case "current_date", "localtimestamp", "current_time", "localtime":
		return clockValue(c.typ, at.Transaction, z), true
	}
	return nil, false
}

// clockCall returns the implementation of a call that reads the clock
// when evaluated, reading at's instead; nil for other calls.
func (at *Instants) clockCall(c *call, z *types.Zone) evalFn {
	if fn := sleepCall(c, at.Ctx); fn != nil {
		return fn
	}
	switch {
	case c.name == "clock_timestamp" && len(c.args) == 0:
		clock := at.Clock
		if clock == nil {
			clock = time.Now
		}
		return func([]types.Datum) (types.Datum, error) { return types.Timestamp(clock().UnixMicro()), nil }
	case c.name == "age" && len(c.args) == 1:
		tx := at.Transaction
		return ageToday(z, c.args[0].Type().ID == types.IDTimestampTZ, func() types.Timestamp { return tx })
	}
	return nil
}

// mapChildren returns e with each child c replaced by f(c), e itself when
// f changes none.
func mapChildren(e Expr, f func(Expr) Expr) Expr {
	ch := e.Children()
	var nc []Expr
	for i, c := range ch {
		w := f(c)
		if w != c && nc == nil {
			nc = append(make([]Expr, 0, len(ch)), ch[:i]...)
		}
		if nc != nil {
			nc = append(nc, w)
		}
	}
	if nc == nil {
		return e
	}
	return e.WithChildren(nc)
}

// ReadsWallClock reports whether e calls clock_timestamp(), whose value
// changes within a statement (PostgreSQL's volatile clock): unlike now()
// and the other instants of a statement, one value of it cannot stand
// for several rows.
func ReadsWallClock(e Expr) bool {
	if c, ok := e.(*call); ok && c.name == "clock_timestamp" {
		return true
	}
	for _, c := range e.Children() {
		if ReadsWallClock(c) {
			return true
		}
	}
	return false
}
