package types

import "math"

// An interval's span is its length as PostgreSQL compares, hashes and
// groups intervals (interval_cmp_value, interval_hash): a month counts 30
// days and a day 24 hours, so '1 mon', '30 days' and '720 hours' are one
// value. Every place that orders, hashes or dedupes intervals (the key
// encoding of storage, comparisons in expressions) goes through Span.

// DaysPerMonth is the length of a month in an interval's span.
const DaysPerMonth = 30

// Span returns iv's span as whole days and the microseconds of a partial
// day, 0 <= micros < MicrosPerDay: (days, micros) pairs order as the
// spans do, and no valid interval overflows them (the span in
// microseconds needs more than 64 bits).
func (iv Interval) Span() (days, micros int64) {
	days = int64(iv.Months)*DaysPerMonth + int64(iv.Days) + iv.Micros/MicrosPerDay
	micros = iv.Micros % MicrosPerDay
	if micros < 0 {
		micros += MicrosPerDay
		days--
	}
	return days, micros
}

// IntervalOfSpan returns an interval of the span (days, micros), with
// micros in [0, MicrosPerDay), in the form justify_interval gives: whole
// months of 30 days, then days, then a time part, all of one sign. Where
// the months would overflow, the rest stays in days, then in the time
// part; ok is false when even that does not fit (no interval has the span).
func IntervalOfSpan(days, micros int64) (iv Interval, ok bool) {
	if days < 0 && micros > 0 {
		days, micros = days+1, micros-MicrosPerDay
	}
	months := clampInt32(days / DaysPerMonth)
	days -= months * DaysPerMonth
	d := clampInt32(days)
	rest := days - d
	if rest > math.MaxInt64/MicrosPerDay || rest < math.MinInt64/MicrosPerDay {
		return Interval{}, false
	}
	spill := rest * MicrosPerDay
	if (spill > 0 && micros > math.MaxInt64-spill) || (spill < 0 && micros < math.MinInt64-spill) {
		return Interval{}, false
	}
	return Interval{Months: int32(months), Days: int32(d), Micros: micros + spill}, true
}

func clampInt32(v int64) int64 { return max(math.MinInt32, min(math.MaxInt32, v)) }
