package expr

// clockFuncs are the functions whose value is the time they are
// evaluated at.
var clockFuncs = map[string]bool{"now": true, "current_timestamp": true, "current_date": true, "localtimestamp": true}

// ReadsClock returns the name of a function of e that reads the clock
// (now, current_timestamp, current_date) or the random source (random):
// its value depends on when, and how often, e is evaluated. "" when none.
func ReadsClock(e Expr) string {
	if c, ok := e.(*call); ok && (clockFuncs[c.name] || c.name == "random") {
		return c.name
	}
	for _, c := range e.Children() {
		if n := ReadsClock(c); n != "" {
			return n
		}
	}
	return ""
}
