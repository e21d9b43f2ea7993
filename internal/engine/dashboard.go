package engine

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/streamdb/streamdb/exec/stream"
	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/dashboard"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/systemcatalog"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
)

// The engine's side of the web dashboard (package dashboard): the
// Source it reads (dashSource), built from what SHOW JOBS and
// streamdb_catalog read, and the sampler that keeps its history.
//
// The sampler is one goroutine, started by the first DashboardHandler
// call and counted in db.bg: Close stops it (db.closing) and joins it
// before it closes the store. It reads atomics, the metrics' histograms
// and counters and the jobs' status once a second; a DB that never
// serves the dashboard never starts it.

const (
	// dashInterval is the time between samples, dashSamples how many the
	// history keeps (ten minutes).
	dashInterval = time.Second
	dashSamples  = 600
)

// dashState is the dashboard's state in a DB; its zero value is ready.
type dashState struct {
	mu   sync.Mutex
	hist *dashboard.History // nil until the sampler starts
	// rates are the fragments' rows per second over the last interval.
	rates map[fragmentKey]float64
}

// fragmentKey names a fragment of one build of a relation's graph: a
// rebuilt graph has new actors, and its counters start again.
type fragmentKey struct {
	rel   uint32
	frag  int
	actor stream.ActorID // the fragment's first actor
}

func keyOf(rel uint32, i int, f *planner.Fragment) (fragmentKey, bool) {
	if len(f.Actors) == 0 {
		return fragmentKey{}, false
	}
	return fragmentKey{rel, i, f.Actors[0]}, true
}

// DashboardHandler serves the web dashboard (package dashboard) of the
// DB, starting its sampler on the first call.
func (db *DB) DashboardHandler() http.Handler {
	db.startSampler()
	return dashboard.Handler(dashSource{db})
}

// startSampler starts the sampler unless it runs or the DB is closing.
func (db *DB) startSampler() {
	d := &db.dash
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hist != nil || closed(db.closing) {
		return
	}
	d.hist = dashboard.NewHistory(dashSamples, dashInterval)
	db.bg.Add(1)
	go func() {
		defer db.bg.Done()
		db.runSampler(d.hist)
	}()
}

// runSampler adds a sample to h every interval until the DB closes.
func (db *DB) runSampler(h *dashboard.History) {
	tick := time.NewTicker(h.Interval())
	defer tick.Stop()
	prev := db.readCounters(time.Now())
	for {
		select {
		case <-db.closing:
			return
		case now := <-tick.C:
			cur := db.readCounters(now)
			h.Add(db.sample(prev, cur))
			db.dash.setRates(prev, cur)
			prev = cur
		}
	}
}

func (d *dashState) setRates(prev, cur *counters) {
	rates := map[fragmentKey]float64{}
	secs := cur.at.Sub(prev.at).Seconds()
	for k, n := range cur.fragments {
		if p, ok := prev.fragments[k]; ok && secs > 0 && n >= p {
			rates[k] = float64(n-p) / secs
		}
	}
	d.mu.Lock()
	d.rates = rates
	d.mu.Unlock()
}

func (d *dashState) rate(k fragmentKey) (float64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.rates[k]
	return r, ok
}

// history returns the DB's history (nil before the sampler started).
func (d *dashState) history() *dashboard.History {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hist
}

// dashSource is the DB as the dashboard reads it.
type dashSource struct{ db *DB }

var _ dashboard.Source = dashSource{}

// Jobs implements dashboard.Source: each job's row is its row of SHOW
// JOBS, rendered from the same status as the rest of its fields.
func (s dashSource) Jobs() ([]dashboard.Job, error) {
	if !s.db.enter() {
		return nil, dashboard.ErrClosed
	}
	defer s.db.leave()
	jobs := systemSource{s.db}.Jobs()
	rows := systemcatalog.JobRows(jobs)
	out := make([]dashboard.Job, 0, len(jobs))
	for i := range jobs {
		out = append(out, dashJob(&jobs[i], rows[i]))
	}
	return out, nil
}

func dashJob(j *systemcatalog.Job, row []types.Datum) dashboard.Job {
	out := dashboard.Job{Name: j.View.Name, Kind: kindWord(j.View.Kind), Row: map[string]any{},
		Progress: min(max(j.Progress/100, 0), 1), SQL: jobCommands(j)}
	for i, c := range jobColumns {
		out.Columns = append(out.Columns, c.Name)
		out.Row[c.Name] = datumJSON(row[i], c.Type)
	}
	if j.Phase == stream.PhaseSnapshot && j.RowsPerSecond > 0 && j.RowsTotal > j.RowsRead {
		eta := float64(j.RowsTotal-j.RowsRead) / j.RowsPerSecond
		out.ETASeconds = &eta
	}
	return out
}

// jobCommands are the statements that steer job j, as ALTER and CANCEL
// JOBS accept them.
func jobCommands(j *systemcatalog.Job) []dashboard.Command {
	alter := "ALTER " + map[bool]string{true: "INDEX", false: "MATERIALIZED VIEW"}[j.View.Kind == catalog.KindIndex] +
		" " + quoteName(j.View.Name)
	limit := j.View.BackfillRateLimit
	if limit <= 0 {
		limit = max(int64(j.RowsPerSecond)/2, 1000)
	}
	return []dashboard.Command{
		{Label: "Pause", SQL: alter + " PAUSE;"},
		{Label: "Resume", SQL: alter + " RESUME;"},
		{Label: "Rate limit (rows/s)", SQL: alter + " SET BACKFILL_RATE_LIMIT = " + itoa(limit) + ";"},
		{Label: "No rate limit", SQL: alter + " SET BACKFILL_RATE_LIMIT = DEFAULT;"},
		{Label: "Adaptive rate", SQL: alter + " SET BACKFILL_RATE_LIMIT = adaptive;"},
		{Label: "Cancel (drops what it created)", SQL: "CANCEL JOBS " + itoa(int64(j.ID)) + ";"},
	}
}

// quoteName quotes a relation's catalog name for SQL.
func quoteName(name string) string {
	schema, n := catalog.SplitName(name)
	if schema == catalog.PublicSchema {
		return expr.QuoteIdent(n)
	}
	return expr.QuoteIdent(schema) + "." + expr.QuoteIdent(n)
}

// datumJSON is a catalog value as JSON: numbers, strings, booleans and
// null as they are, anything else as it prints.
func datumJSON(d types.Datum, t types.Type) any {
	switch d.(type) {
	case nil, int64, float64, string, bool:
		return d
	}
	return types.Format(d, t)
}

// Views implements dashboard.Source: the relations that run a job.
func (s dashSource) Views() ([]dashboard.View, error) {
	if !s.db.enter() {
		return nil, dashboard.ErrClosed
	}
	defer s.db.leave()
	src := systemSource{s.db}
	out := []dashboard.View{}
	for _, r := range src.Relations() {
		if len(src.Fragments(r.ID)) > 0 {
			out = append(out, dashboard.View{Name: r.Name, Kind: kindWord(r.Kind), State: stateWord(r.State)})
		}
	}
	return out, nil
}

func stateWord(s catalog.State) string {
	if s == catalog.StateCreating {
		return "creating"
	}
	return "created"
}

// Graph implements dashboard.Source, from the fragments
// streamdb_catalog.fragments and streamdb_catalog.actors list.
func (s dashSource) Graph(name string) (*dashboard.Graph, bool, error) {
	if !s.db.enter() {
		return nil, false, dashboard.ErrClosed
	}
	defer s.db.leave()
	rel, ok := s.db.Relation(name)
	if !ok || rel.Kind == catalog.KindSystem {
		return nil, false, nil
	}
	g := &dashboard.Graph{View: rel.Name, Kind: kindWord(rel.Kind), State: stateWord(rel.State),
		Upstreams: []string{}, Fragments: []dashboard.Fragment{}, Exchanges: []dashboard.Exchange{}}
	frags := systemSource{s.db}.Fragments(rel.ID)
	for i := range frags {
		g.Fragments = append(g.Fragments, s.fragment(rel.ID, i, &frags[i]))
		for _, in := range frags[i].Inputs {
			e := dashboard.Exchange{From: in.Fragment, Upstream: in.Upstream, To: i, Key: planner.KeyCols(in.Key)}
			if in.Upstream != "" {
				e.From = -1
				if !slices.Contains(g.Upstreams, in.Upstream) {
					g.Upstreams = append(g.Upstreams, in.Upstream)
				}
			}
			g.Exchanges = append(g.Exchanges, e)
		}
	}
	return g, true, nil
}

func (s dashSource) fragment(rel uint32, i int, f *planner.Fragment) dashboard.Fragment {
	ops := slices.Clone(f.Ops)
	slices.Reverse(ops)
	out := dashboard.Fragment{ID: i, Kind: f.Kind, Operators: ops, Parallelism: len(f.Actors),
		Actors: make([]dashboard.Actor, len(f.Actors)), RowsOut: f.Stats().RowsOut}
	for a, id := range f.Actors {
		out.Actors[a] = dashboard.Actor{ID: uint64(id), VnodeCount: f.Vnodes[a].Count(),
			Vnodes: systemcatalog.VnodeRanges(&f.Vnodes[a])}
	}
	if k, ok := keyOf(rel, i, f); ok {
		if r, ok := s.db.dash.rate(k); ok {
			out.RowsPerSecond = &r
		}
	}
	return out
}

// History implements dashboard.Source.
func (s dashSource) History(since int64) (*dashboard.HistoryReply, error) {
	h := s.db.dash.history()
	if h == nil {
		return &dashboard.HistoryReply{IntervalMillis: dashInterval.Milliseconds(), Samples: []dashboard.Sample{}}, nil
	}
	r := h.Reply(since)
	if r.Samples == nil {
		r.Samples = []dashboard.Sample{}
	}
	return r, nil
}

// Events implements dashboard.Source: the rows of
// streamdb_catalog.recoveries and streamdb_catalog.view_errors.
func (s dashSource) Events() (*dashboard.Events, error) {
	if !s.db.enter() {
		return nil, dashboard.ErrClosed
	}
	defer s.db.leave()
	src := systemSource{s.db}
	out := &dashboard.Events{Recoveries: []dashboard.Recovery{}, ViewErrors: []dashboard.ViewError{}}
	for _, r := range src.Recoveries() {
		out.Recoveries = append(out.Recoveries, dashboard.Recovery{Seq: r.Seq, At: rfc3339(r.At), Relation: r.Relation,
			Cause: r.Cause, RebuildMS: float64(r.Rebuild.Microseconds()) / 1000})
	}
	for _, e := range src.ViewErrors() {
		out.ViewErrors = append(out.ViewErrors, dashboard.ViewError{View: e.View, Code: e.Code, Error: e.Message,
			Count: e.Count, FirstEpoch: e.FirstEpoch, LastEpoch: e.LastEpoch, FirstAt: rfc3339(e.First), LastAt: rfc3339(e.Last)})
	}
	return out, nil
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
