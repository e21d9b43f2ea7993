package failpoint

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Action is what a failpoint does when it fires.
type Action uint8

// Actions.
const (
	// Error makes Hit return an *InjectedError.
	Error Action = iota + 1
	// Panic makes Hit panic with an *InjectedError.
	Panic
	// End makes Hit return an *InjectedError that matches ErrEnd: the stream at
	// the point ends without a barrier (see the point's documentation).
	End
	// Exit makes the process exit at once (status 3), as a kill -9 there
	// would: for points in a server process a test started.
	Exit
)

func (a Action) String() string {
	switch a {
	case Error:
		return "error"
	case Panic:
		return "panic"
	case End:
		return "end"
	case Exit:
		return "exit"
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Spec says when an enabled failpoint fires and what it does then.
type Spec struct {
	Action Action
	// After is how many hits pass before the point may fire.
	After int64
	// Times is how many times it fires at most (0: no limit).
	Times int64
	// Prob is the chance that an eligible hit fires (0 means 1).
	Prob float64
	// Seed seeds the draws of Prob.
	Seed uint64
}

// Sentinel errors; match them with errors.Is.
var (
	// ErrInjected is matched by every error a failpoint makes.
	ErrInjected = errors.New("failpoint: injected failure")
	// ErrEnd is matched by the error of a point fired with End.
	ErrEnd = errors.New("failpoint: injected end of stream")
	// ErrUnknown is returned for a name that is not in Names.
	ErrUnknown = errors.New("failpoint: unknown failpoint")
	// ErrDisabled is returned by Enable in a build without the
	// invariants tag.
	ErrDisabled = errors.New("failpoint: failpoints need the invariants build tag")
)

// InjectedError is the failure a point injects.
type InjectedError struct {
	Name   string
	Action Action
}

func (e *InjectedError) Error() string {
	return "failpoint " + e.Name + ": injected " + e.Action.String()
}

// Is matches ErrInjected, and ErrEnd for End.
func (e *InjectedError) Is(target error) bool {
	return target == ErrInjected || (target == ErrEnd && e.Action == End)
}

func known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// Parse reads failpoint settings as STREAMDB_FAILPOINTS holds them:
// "name=action[,after=N][,times=N][,prob=P][,seed=N]" joined by ';'.
func Parse(s string) (map[string]Spec, error) {
	out := map[string]Spec{}
	for _, item := range strings.Split(s, ";") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, rest, ok := strings.Cut(item, "=")
		if !ok || !known(name) {
			return nil, fmt.Errorf("%w: %q", ErrUnknown, item)
		}
		spec, err := parseSpec(rest)
		if err != nil {
			return nil, fmt.Errorf("failpoint %s: %w", name, err)
		}
		out[name] = spec
	}
	return out, nil
}

func parseSpec(s string) (Spec, error) {
	fields := strings.Split(s, ",")
	var spec Spec
	switch fields[0] {
	case "error":
		spec.Action = Error
	case "panic":
		spec.Action = Panic
	case "end":
		spec.Action = End
	case "exit":
		spec.Action = Exit
	default:
		return spec, fmt.Errorf("unknown action %q", fields[0])
	}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		var err error
		switch k {
		case "after":
			spec.After, err = strconv.ParseInt(v, 10, 64)
		case "times":
			spec.Times, err = strconv.ParseInt(v, 10, 64)
		case "prob":
			spec.Prob, err = strconv.ParseFloat(v, 64)
		case "seed":
			spec.Seed, err = strconv.ParseUint(v, 10, 64)
		default:
			err = fmt.Errorf("unknown setting %q", k)
		}
		if err != nil {
			return spec, err
		}
	}
	return spec, nil
}
