package stream

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"sync"
	"time"
)

// AdaptTraceEnv names the environment variable that turns on the
// adaptive backfill rate's trace: one line per controller interval
// (CreatingJob.adapt) with what it saw and what it chose, appended to
// the file it names ("-": standard error). It is a measuring aid (issue
// 16: why a 10M-row adaptive backfill neither protected a busy load nor
// kept its speed idle), read once, when the first job adapts; it changes
// nothing the controller does.
const AdaptTraceEnv = "STREAMDB_ADAPTIVE_TRACE"

// adaptTrace is the trace's writer, shared by every job's loop goroutine
// (lines are written whole under mu). The file stays open for the
// process's life: the trace is a debugging switch, not a resource a DB
// owns.
var adaptTrace struct {
	once sync.Once
	mu   sync.Mutex
	w    io.Writer // nil: off
	gc   []metrics.Sample
}

func adaptTraceWriter() io.Writer {
	adaptTrace.once.Do(func() {
		switch p := os.Getenv(AdaptTraceEnv); p {
		case "":
		case "-":
			adaptTrace.w = os.Stderr
		default:
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", AdaptTraceEnv, err)
				return
			}
			adaptTrace.w = f
		}
		adaptTrace.gc = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	})
	return adaptTrace.w
}

// traceAdapt writes one interval of job j's controller: when (seconds
// since the job's signals started), the rows read so far, what nextRate
// saw (in) and chose (r), whether the interval was a probe's
// (adaptState), how long its scans waited for the rate limit
// in the interval (throttled, seconds, summed over the scans), the signal's reference and the process's GC
// cycles so far.
func (j *CreatingJob) traceAdapt(now time.Time, read int64, in adaptInput, ref float64, probe bool, r float64) {
	w := adaptTraceWriter()
	if w == nil {
		return
	}
	adaptTrace.mu.Lock()
	defer adaptTrace.mu.Unlock()
	metrics.Read(adaptTrace.gc)
	var gc uint64
	if v := adaptTrace.gc[0].Value; v.Kind() == metrics.KindUint64 {
		gc = v.Uint64()
	}
	throttled := j.throttledFor()
	fmt.Fprintf(w, "adapt job=%d t=%.3f read=%d throttled=%.3f rate=%.0f probe=%t got=%.0f over=%d recent=%d writes=%d live=%t sched=%.3f ref=%.3f base=%.3f limit=%.3f floor=%.0f target=%s gc=%d -> %.0f\n",
		j.ID, now.Sub(j.signalsAt).Seconds(), read, (throttled - j.traceThrottled).Seconds(), in.rate, probe, in.got, in.over, in.recentOver, in.writes, in.live,
		in.sched, ref, j.schedBase, in.schedLimit, in.floor, j.Target(), gc, r)
	j.traceThrottled = throttled
}
