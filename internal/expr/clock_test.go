package expr

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/types"
)

// TestAtInstants: the functions of the current time read the instants
// they are given, in the zone for the local ones, and clock_timestamp()
// the clock at each call.
func TestAtInstants(t *testing.T) {
	tokyo, err := types.LoadZone("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	tx := types.Timestamp(time.Date(2024, 3, 31, 20, 0, 0, 0, time.UTC).UnixMicro())
	clock := tx + 5_000_000
	at := &Instants{Transaction: tx, Statement: tx + 1_000_000, Clock: func() time.Time {
		clock++
		return time.UnixMicro(int64(clock))
	}}
	call := func(name string, args ...Expr) Expr {
		e, err := Func(name, args)
		if err != nil {
			t.Fatal(err)
		}
		return AtInstants(WithZone(e, tokyo), at, tokyo)
	}
	jan, _ := types.ParseTimestamp("2024-01-01", false)
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{call("now"), "2024-03-31 20:00:00+00"},
		{call("current_timestamp"), "2024-03-31 20:00:00+00"},
		{call("transaction_timestamp"), "2024-03-31 20:00:00+00"},
		{call("statement_timestamp"), "2024-03-31 20:00:01+00"},
		{call("current_date"), "2024-04-01"},
		{call("localtimestamp"), "2024-04-01 05:00:00"},
		{call("age", NewConst(jan, types.TTimestamp)), "3 mons"},
		{call("clock_timestamp"), "2024-03-31 20:00:05.000001+00"},
		{call("clock_timestamp"), "2024-03-31 20:00:05.000002+00"},
	} {
		v, err := tc.e.Eval(nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := types.Format(v, tc.e.Type()); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.e, got, tc.want)
		}
	}
	// Without instants, they read the system clock at each evaluation.
	e, _ := Func("statement_timestamp", nil)
	before := systemNow()
	v, _ := e.Eval(nil)
	if ts := v.(types.Timestamp); ts < before || ts > systemNow() {
		t.Errorf("statement_timestamp() without instants = %d, not the system's time", ts)
	}
	if ReadsClock(call("now")) != "" || ReadsClock(call("clock_timestamp")) != "clock_timestamp" {
		t.Errorf("ReadsClock after AtInstants: now() is fixed, clock_timestamp() is not")
	}
}
