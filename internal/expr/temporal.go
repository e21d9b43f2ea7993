package expr

// Temporal filters (a view's WHERE ts > now() - INTERVAL '1 hour'): the
// planner finds the comparisons of a row's value with an expression of
// now() alone and runs them as filters whose threshold moves with the
// barriers' time; these helpers find and replace the calls of now().

// nowFuncs are the functions that read the instant as a timestamptz.
var nowFuncs = map[string]bool{"now": true, "current_timestamp": true}

// ReadsNow reports whether e calls now() (or current_timestamp).
func ReadsNow(e Expr) bool {
	if c, ok := e.(*call); ok && nowFuncs[c.name] {
		return true
	}
	for _, c := range e.Children() {
		if ReadsNow(c) {
			return true
		}
	}
	return false
}

// ReplaceNow returns e with every call of now() (or current_timestamp)
// replaced by with, a timestamptz.
func ReplaceNow(e Expr, with Expr) Expr {
	if c, ok := e.(*call); ok && nowFuncs[c.name] {
		return with
	}
	return mapChildren(e, func(c Expr) Expr { return ReplaceNow(c, with) })
}

// ReadsTime returns the name of a function of e whose value is the time
// it is evaluated at (now, current_timestamp, current_date,
// localtimestamp, ...), "" when none.
func ReadsTime(e Expr) string {
	if c, ok := e.(*call); ok && clockFuncs[c.name] {
		return c.name
	}
	for _, c := range e.Children() {
		if n := ReadsTime(c); n != "" {
			return n
		}
	}
	return ""
}
