package expr

import (
	"github.com/streamdb/streamdb/internal/types"
)

// funcBuilder builds a call of one function from its arguments.
type funcBuilder func(name string, args []Expr) (Expr, error)

// functions maps each scalar function name to its builder. Built at init,
// read-only afterwards.
var functions = map[string]funcBuilder{}

// overloads returns a builder resolving among strict overloads.
func overloads(sigs ...sig) funcBuilder {
	return func(name string, args []Expr) (Expr, error) {
		return newCall(name, styleFunc, sigs, args)
	}
}

// fn1 .. fn3 describe one overload.
func fn1(p types.ID, res types.ID, f evalFn) sig {
	return sig{params: []types.ID{p}, result: res, fn: f}
}

func fn2(p1, p2 types.ID, res types.ID, f evalFn) sig {
	return sig{params: []types.ID{p1, p2}, result: res, fn: f}
}

func fn3(p1, p2, p3 types.ID, res types.ID, f evalFn) sig {
	return sig{params: []types.ID{p1, p2, p3}, result: res, fn: f}
}

func register(b funcBuilder, names ...string) {
	for _, n := range names {
		functions[n] = b
	}
}

// function builds a scalar function call; see Func.
func function(name string, args []Expr) (Expr, error) {
	b, ok := functions[name]
	if !ok {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	return b(name, args)
}

func init() {
	registerConditionals()
	registerMath()
	registerStrings()
	registerDateTime()
	registerSleep()
	registerTrig()
	registerLogs()
}
