package expr

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// SQLSTATEs this package raises that internal/pgerr does not name.
const (
	codeAmbiguousFunction = "42725"
	codeCannotCoerce      = "42846"
	codeInvalidPower      = "2201F"
)

// evalFn computes an operator or function from its (coerced) argument
// values.
type evalFn func(args []types.Datum) (types.Datum, error)

// sig is one overload of an operator or function, as a pg_operator or
// pg_proc row: parameter types, result type and implementation.
type sig struct {
	params []types.ID
	result types.ID
	fn     evalFn
}

// Type categories, as pg_type.typcategory.
const (
	catBool     = 'B'
	catNumeric  = 'N'
	catString   = 'S'
	catDateTime = 'D'
	catTimespan = 'T'
	catUnknown  = 'X'
	catNetwork  = 'I'
)

func category(id types.ID) byte {
	switch id {
	case types.IDBool:
		return catBool
	case types.IDInt16, types.IDInt32, types.IDInt64, types.IDFloat32, types.IDFloat64, types.IDNumeric:
		return catNumeric
	case types.IDText, types.IDVarchar:
		return catString
	case types.IDDate, types.IDTimestamp, types.IDTimestampTZ:
		return catDateTime
	case types.IDInterval:
		return catTimespan
	}
	return extCategory(id)
}

// preferred reports whether id is the preferred type of its category.
func preferred(id types.ID) bool {
	switch id {
	case types.IDBool, types.IDFloat64, types.IDText, types.IDTimestampTZ, types.IDInterval, types.IDInet:
		return true
	}
	return false
}

// numericRank orders the number types along their implicit casts.
var numericRank = map[types.ID]int{
	types.IDInt16: 1, types.IDInt32: 2, types.IDInt64: 3,
	types.IDNumeric: 4, types.IDFloat32: 5, types.IDFloat64: 6,
}

// implicitCast reports whether Postgres converts from to to implicitly.
func implicitCast(from, to types.ID) bool {
	if from == to || from == types.IDUnknown {
		return true
	}
	if ok, decided := extImplicitCast(from, to); decided {
		return ok
	}
	switch category(from) {
	case catNumeric:
		return category(to) == catNumeric && numericRank[from] < numericRank[to]
	case catString:
		return category(to) == catString
	case catDateTime:
		return category(to) == catDateTime && from < to
	}
	return false
}

// resolveError describes a failed overload resolution.
type resolveError int

const (
	resolvedOK resolveError = iota
	resolveNone
	resolveAmbiguous
)

// resolve picks the overload of cands for argument types args with
// Postgres's rules (func_select_candidate): an exact match, else the sole
// implicitly coercible candidate, else the one with most exact matches,
// then most preferred types, then unknowns resolved by category, then
// unknowns assumed to be of the known arguments' type.
func resolve(cands []sig, args []types.ID, binaryOp bool) (*sig, resolveError) {
	if s := exactMatch(cands, args, binaryOp); s != nil {
		return s, resolvedOK
	}
	var live []*sig
	for i := range cands {
		if coercible(&cands[i], args) {
			live = append(live, &cands[i])
		}
	}
	switch len(live) {
	case 0:
		return nil, resolveNone
	case 1:
		return live[0], resolvedOK
	}
	for _, step := range []func([]*sig, []types.ID) []*sig{keepMostExact, keepMostPreferred, keepUnknownCategory, keepKnownTypeForUnknown} {
		live = step(live, args)
		if len(live) == 1 {
			return live[0], resolvedOK
		}
		if len(live) == 0 {
			break
		}
	}
	return nil, resolveAmbiguous
}

func exactMatch(cands []sig, args []types.ID, binaryOp bool) *sig {
	want := slices.Clone(args)
	if binaryOp && len(want) == 2 {
		if want[0] == types.IDUnknown {
			want[0] = want[1]
		} else if want[1] == types.IDUnknown {
			want[1] = want[0]
		}
	}
	for i := range cands {
		if slices.Equal(cands[i].params, want) {
			return &cands[i]
		}
	}
	return nil
}

func coercible(s *sig, args []types.ID) bool {
	if len(s.params) != len(args) {
		return false
	}
	for i, a := range args {
		if !implicitCast(a, s.params[i]) {
			return false
		}
	}
	return true
}

// keepBest keeps the candidates with the highest score.
func keepBest(live []*sig, score func(*sig) int) []*sig {
	best, out := -1, []*sig(nil)
	for _, s := range live {
		switch n := score(s); {
		case n > best:
			best, out = n, []*sig{s}
		case n == best:
			out = append(out, s)
		}
	}
	return out
}

func keepMostExact(live []*sig, args []types.ID) []*sig {
	return keepBest(live, func(s *sig) int {
		n := 0
		for i, a := range args {
			if a != types.IDUnknown && s.params[i] == a {
				n++
			}
		}
		return n
	})
}

func keepMostPreferred(live []*sig, args []types.ID) []*sig {
	return keepBest(live, func(s *sig) int {
		n := 0
		for i, a := range args {
			p := s.params[i]
			if a != types.IDUnknown && (p == a || (preferred(p) && category(p) == category(a))) {
				n++
			}
		}
		return n
	})
}

// keepUnknownCategory settles each unknown argument on a type category:
// string if any candidate takes a string there, else the one category all
// candidates agree on; then keeps candidates of that category (and of its
// preferred type, when some candidate takes it).
func keepUnknownCategory(live []*sig, args []types.ID) []*sig {
	out := live
	for i, a := range args {
		if a != types.IDUnknown {
			continue
		}
		cat, hasPref, conflict := byte(0), false, false
		for _, s := range live {
			c, p := category(s.params[i]), preferred(s.params[i])
			switch {
			case cat == 0 || c == cat:
				cat, hasPref = c, hasPref || p
			case c == catString:
				cat, hasPref = c, p
			default:
				conflict = true
			}
		}
		if conflict && cat != catString {
			return live
		}
		out = slices.DeleteFunc(slices.Clone(out), func(s *sig) bool {
			return category(s.params[i]) != cat || (hasPref && !preferred(s.params[i]))
		})
	}
	return out
}

// keepKnownTypeForUnknown: when all known arguments share one type, assume
// the unknown ones have it too.
func keepKnownTypeForUnknown(live []*sig, args []types.ID) []*sig {
	known := types.IDUnknown
	for _, a := range args {
		if a == types.IDUnknown {
			continue
		}
		if known != types.IDUnknown && a != known {
			return nil
		}
		known = a
	}
	if known == types.IDUnknown {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(live), func(s *sig) bool {
		for i, a := range args {
			if a == types.IDUnknown && !implicitCast(known, s.params[i]) {
				return true
			}
		}
		return false
	})
}

// operatorError is the 42883 or 42725 error of an operator that cannot be
// resolved for the argument types.
func operatorError(op string, args []types.Type, why resolveError) error {
	var desc string
	if len(args) == 1 {
		desc = op + " " + args[0].String()
	} else {
		desc = args[0].String() + " " + op + " " + args[1].String()
	}
	if why == resolveAmbiguous {
		return &pgerr.Error{Code: codeAmbiguousFunction, Message: "operator is not unique: " + desc,
			Hint: "Could not choose a best candidate operator. You might need to add explicit type casts."}
	}
	return &pgerr.Error{Code: pgerr.UndefinedFunction, Message: "operator does not exist: " + desc,
		Hint: "No operator matches the given name and argument types. You might need to add explicit type casts."}
}

// functionError is the 42883 or 42725 error of a function call that cannot
// be resolved for the argument types.
func functionError(name string, args []types.Type, why resolveError) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.String()
	}
	desc := name + "(" + strings.Join(names, ", ") + ")"
	if why == resolveAmbiguous {
		return &pgerr.Error{Code: codeAmbiguousFunction, Message: "function " + desc + " is not unique",
			Hint: "Could not choose a best candidate function. You might need to add explicit type casts."}
	}
	return &pgerr.Error{Code: pgerr.UndefinedFunction, Message: "function " + desc + " does not exist",
		Hint: "No function matches the given name and argument types. You might need to add explicit type casts."}
}

// typeIDs returns the type IDs of es.
func typeIDs(es []Expr) []types.ID {
	out := make([]types.ID, len(es))
	for i, e := range es {
		out[i] = e.Type().ID
	}
	return out
}

// exprTypes returns the types of es.
func exprTypes(es []Expr) []types.Type {
	out := make([]types.Type, len(es))
	for i, e := range es {
		out[i] = e.Type()
	}
	return out
}

// coerceArgs converts each argument to the matching parameter type of s.
func coerceArgs(s *sig, args []Expr) ([]Expr, error) {
	out := make([]Expr, len(args))
	for i, a := range args {
		c, err := coerce(a, types.Type{ID: s.params[i]})
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
