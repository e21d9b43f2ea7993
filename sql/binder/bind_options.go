package binder

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// WITH (...) options of CREATE MATERIALIZED VIEW and CREATE TABLE. The
// binder checks the keys and values; the root package reads the
// (validated) map.

// viewWithOptions are the keys CREATE MATERIALIZED VIEW ... WITH takes.
var viewWithOptions = map[string]bool{"backfill_rate_limit": true, "streaming_parallelism": true}

// tableWithOptions are the keys CREATE TABLE ... WITH takes.
var tableWithOptions = map[string]bool{"dml_rate_limit": true, "streaming_parallelism": true}

// connectorTableWithOptions are the keys CREATE TABLE ... WITH takes
// besides its connector's options when it has a connector.
var connectorTableWithOptions = map[string]bool{"dml_rate_limit": true, "source_rate_limit": true, "streaming_parallelism": true}

// sourceWithOptions are the keys CREATE SOURCE ... WITH takes besides its
// connector's options.
var sourceWithOptions = map[string]bool{"source_rate_limit": true}

// checkWithOptions rejects unknown keys (22023, naming the key, as
// Postgres does for an unknown storage parameter) and rate
// limits that are not integers >= 0 (22023).
func (b *binder) checkWithOptions(what string, with map[string]string, known map[string]bool) (map[string]string, error) {
	if len(with) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(with))
	for k := range with {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(with))
	for _, k := range keys {
		v := with[k]
		if !known[k] {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized %s option %q", what, k)
			e.Hint = "Valid options are: " + strings.Join(names, ", ") + "."
			return nil, b.at(e, nil, k)
		}
		if strings.HasSuffix(k, "_rate_limit") {
			if _, err := ParseRateLimit(k, v); err != nil {
				return nil, b.at(err, nil, k)
			}
		}
		if k == "streaming_parallelism" {
			if _, err := ParseParallelism(k, v); err != nil {
				return nil, b.at(err, nil, k)
			}
		}
		out[k] = v
	}
	return out, nil
}

// RateAdaptive is what ParseRateLimit returns for backfill_rate_limit =
// 'adaptive': a backfill rate that a controller raises while the running
// graph's barriers stay under backfill_latency_target, and lowers when
// they do not.
const RateAdaptive = -2

// RateUnlimited is what ParseRateLimit returns for 'unlimited': no limit,
// whatever the default. 0 pauses (a rate of 0 rows per second), and
// DEFAULT (RateDefault) is the default's: no limit for dml_rate_limit and
// source_rate_limit, 'adaptive' for backfill_rate_limit (issue 16), for
// which 'unlimited' is the opt-out.
const RateUnlimited = -3

// RateDefault is what ParseRateLimit returns for DEFAULT or an empty
// value.
const RateDefault = -1

// ParseRateLimit parses the value of a *_rate_limit option or session
// variable: an integer >= 0 (rows per second; 0 pauses), "default" or
// empty (RateDefault), "unlimited" (RateUnlimited), or for
// backfill_rate_limit "adaptive" (RateAdaptive). Anything else is 22023.
// What DEFAULT means is the caller's (see RateUnlimited).
func ParseRateLimit(name, v string) (n int64, err error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "default") || v == "" {
		return RateDefault, nil
	}
	if strings.EqualFold(v, "unlimited") {
		return RateUnlimited, nil
	}
	if strings.EqualFold(v, "adaptive") && name == "backfill_rate_limit" {
		return RateAdaptive, nil
	}
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil || n < 0 {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v)
		e.Hint = "A rate limit is an integer number of rows per second, at least 0 (0 pauses); 'unlimited' or DEFAULT removes it."
		if name == "backfill_rate_limit" {
			e.Hint = "A rate limit is an integer number of rows per second, at least 0 (0 pauses), 'adaptive' (the default, also DEFAULT) or 'unlimited'."
		}
		return 0, e
	}
	return n, nil
}

// ParseParallelism parses the value of the streaming_parallelism option or
// session variable: an integer from 1 to planner.MaxParallelism, or
// "default", "adaptive" or empty (0: the database's default, which
// follows the number of cores). Anything else is 22023.
func ParseParallelism(name, v string) (int, error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "default") || strings.EqualFold(v, "adaptive") || v == "" {
		return 0, nil
	}
	n, perr := strconv.Atoi(v)
	if perr != nil || n < 1 || n > planner.MaxParallelism {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v)
		e.Hint = fmt.Sprintf("Parallelism is an integer from 1 to %d; DEFAULT uses the number of cores.", planner.MaxParallelism)
		return 0, e
	}
	return n, nil
}
