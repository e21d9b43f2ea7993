package stream

// Unit tests of StreamScan flow control (I2, I3): the scan and its
// LogWriter are driven directly, as their actors would drive them, over
// scripted channels and an in-memory store. The rig plays both barrier
// sequences: barrier commits an epoch of the running graph at once (the
// upstream table's writes and the log writer's batch) and queues a job
// barrier for the scan; the scan's batch commits when it returns a job
// barrier (CommitJob), and the chunks it emitted since are applied to the
// "view" only then, so a crashed scan's uncommitted output is dropped as
// a failed actor's would be. finish joins the job to the running graph
// as the coordinator does.

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/storage"
)

const scanTestJob = 7

type scanRig struct {
	t     *testing.T
	st    *storage.Store
	up    *storage.Table
	upW   *StateContext // the upstream table's writes of the current epoch
	rel   *randRel
	state *BackfillTables
	prog  *BackfillProgress

	ch     chan Message // upstream changes and barriers, to the writer
	jobCh  chan Message // the job's barriers, to the scan
	fwd    chan Message // the writer's output to the scan, once joined
	wsc    *StateContext
	writer *LogWriter
	sc     *StateContext
	scan   *StreamScan

	epoch    uint64 // the last epoch of the running graph committed
	sent     uint64 // Prev of its last barrier sent
	jepoch   uint64 // the last job epoch committed
	jsent    uint64 // Prev of the last job barrier sent
	prepared bool   // a prepareJoin was sent
	joined   bool
	pending  []change
	view     multiset
	// chunkSizes records the size of every chunk emitted, in order.
	chunkSizes []int
}

// newScanRig loads n rows into the upstream table and commits them.
func newScanRig(t *testing.T, n int, seed uint64) *scanRig {
	t.Helper()
	st := newTestStore(t)
	rng := rand.New(rand.NewPCG(seed, 99))
	r := &scanRig{t: t, st: st, up: kvLayout(1), view: multiset{},
		rel: newRandRel(rng, func(rng *rand.Rand, pk int64) trow { return trow{pk, rng.Int64N(1000)} })}
	r.rel.pInsert = 1
	w := st.NewWriteBatch()
	for i := 0; i < n; i++ {
		for _, c := range r.rel.change() {
			if err := r.up.Insert(w, c.row); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.rel.pInsert = 0.4
	r.epoch, r.sent = 1, 1
	if err := st.CommitEpoch(1, []*storage.WriteBatch{w}); err != nil {
		t.Fatal(err)
	}
	r.upW = NewStateContext(st)
	r.state = NewBackfillTables([]uint32{101, 102}, r.up)
	return r
}

// start builds a scan and its writer (a fresh backfill, or with Resume
// one that continues from persisted progress), the scan pinned to the
// committed state, as the coordinator starts a creating job.
func (r *scanRig) start(opts ScanOptions) {
	r.ch = make(chan Message, 4096)
	r.jobCh = make(chan Message, 4096)
	r.fwd = make(chan Message, 4096)
	r.sc = NewStateContext(r.st)
	r.wsc = NewStateContext(r.st)
	r.prog = NewBackfillProgress()
	opts.Backfill, opts.State, opts.Progress = true, r.state, r.prog
	opts.Job, opts.Scans = scanTestJob, max(opts.Scans, 1)
	opts.Barriers = &Receiver{C: r.jobCh, Typ: kvTypes}
	r.writer = NewLogWriter(&Receiver{C: r.ch, Typ: kvTypes}, r.up, r.wsc, r.state, storage.AllVnodes(), scanTestJob, r.prog)
	if err := r.writer.Load(); err != nil {
		r.t.Fatal(err)
	}
	r.scan = NewStreamScan(&Receiver{C: r.fwd, Typ: kvTypes}, r.up, r.sc, opts)
	r.scan.Pin(r.st.Snapshot(), r.epoch)
	r.prepared, r.joined = false, false
}

// crash drops the scan with its uncommitted job epoch (its batch and the
// chunks it emitted since the last barrier).
func (r *scanRig) crash() {
	r.scan.Close()
	r.sc.TakeBatch().Close()
	r.wsc.TakeBatch().Close()
	r.pending = nil
}

// barrier sends a barrier of the running graph: before the join it
// commits the epoch (the upstream's writes and what the writer logged)
// and queues a job barrier carrying m (nil: none) for the scan; once
// joined it passes the writer to the scan, which returns it (next).
func (r *scanRig) barrier(m Mutation) {
	r.t.Helper()
	r.sent++
	b := &Barrier{Prev: r.sent, Curr: r.sent + 1}
	if r.joined {
		b.Mutation = m
		r.ch <- Message{Barrier: b}
		r.pump()
		return
	}
	r.ch <- Message{Barrier: b}
	r.writerBarrier(b)
	r.jobBarrier(m)
}

// jobBarrier queues a job barrier carrying m.
func (r *scanRig) jobBarrier(m Mutation) {
	r.jsent++
	r.jobCh <- Message{Barrier: &Barrier{Prev: r.jsent, Curr: r.jsent + 1, Mutation: m}}
}

// writerBarrier runs the writer up to barrier b and commits the epoch.
func (r *scanRig) writerBarrier(b *Barrier) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	m, err := r.writer.Next(ctx)
	if err != nil || m.Barrier != b {
		r.t.Fatalf("writer: %v, barrier %v", err, m.Barrier)
	}
	if err := r.st.CommitEpoch(b.Prev, []*storage.WriteBatch{r.upW.TakeBatch(), r.wsc.TakeBatch()}); err != nil {
		r.t.Fatalf("commit %d: %v", b.Prev, err)
	}
	r.epoch = b.Prev
}

// pump, once joined, passes what the writer forwards on to the scan, up
// to the barrier just sent.
func (r *scanRig) pump() {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for {
		m, err := r.writer.Next(ctx)
		if err != nil {
			r.t.Fatalf("writer: %v", err)
		}
		r.fwd <- m
		if m.Barrier != nil {
			return
		}
	}
}

// join runs the join as the coordinator does once the scan reports the
// log store drained: a job barrier parks the scan, then the running
// graph's JoinMutation passes the writer and commits.
func (r *scanRig) join() {
	r.t.Helper()
	r.prepared = true
	r.jobBarrier(&prepareJoin{})
	r.mustBarrier("prepare join")
	r.sent++
	b := &Barrier{Prev: r.sent, Curr: r.sent + 1, Mutation: &JoinMutation{Job: scanTestJob}}
	r.ch <- Message{Barrier: b}
	r.writerBarrier(b)
	r.fwd <- Message{Barrier: b}
	r.joined = true
}

// settled reports whether every barrier sent came back and committed.
func (r *scanRig) settled() bool {
	if r.joined {
		return r.epoch == r.sent
	}
	return r.jepoch == r.jsent
}

// lastSent is the Prev of the last barrier the scan is to return.
func (r *scanRig) lastSent() uint64 {
	if r.joined {
		return r.sent
	}
	return r.jsent
}

func pause() Mutation       { return &ThrottleMutation{Job: scanTestJob, Paused: true} }
func resume() Mutation      { return &ThrottleMutation{Job: scanTestJob} }
func rate(n int64) Mutation { return &ThrottleMutation{Job: scanTestJob, RateLimit: n} }

// write queues one random chunk of upstream changes and stages them in
// the upstream table (committed with the next barrier's epoch).
func (r *scanRig) write(n int) {
	var cs []change
	for range n {
		cs = append(cs, r.rel.change()...)
	}
	for _, c := range cs {
		var err error
		if c.op.IsInsert() {
			err = r.up.Insert(r.upW.Batch(), c.row)
		} else {
			err = r.up.Delete(r.upW.Batch(), c.row)
		}
		if err != nil {
			r.t.Fatal(err)
		}
	}
	r.ch <- chunkMsg(kvTypes, cs...)
}

// next calls Next with a time limit; ok is false when it timed out (the
// scan had nothing to emit). Barriers are committed, chunks recorded.
func (r *scanRig) next(limit time.Duration) (Message, bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	m, err := r.scan.Next(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return Message{}, false
	}
	if err != nil {
		r.t.Fatalf("Next: %v", err)
	}
	if m.Chunk != nil {
		if m.Chunk.NumRows() == 0 || m.Chunk.NumRows() > scanChunkRows {
			r.t.Fatalf("chunk of %d rows", m.Chunk.NumRows())
		}
		r.chunkSizes = append(r.chunkSizes, m.Chunk.NumRows())
		r.pending = append(r.pending, chunkChanges(r.t, m.Chunk)...)
		m.Chunk.Release()
		return m, true
	}
	b := m.Barrier
	if r.joined {
		// The running graph's: its epoch commits with the scan's batch.
		if b.Prev != r.epoch+1 {
			r.t.Fatalf("barrier %d after epoch %d", b.Prev, r.epoch)
		}
		if err := r.st.CommitEpoch(b.Prev, []*storage.WriteBatch{r.upW.TakeBatch(), r.wsc.TakeBatch(), r.sc.TakeBatch()}); err != nil {
			r.t.Fatalf("commit %d: %v", b.Prev, err)
		}
		r.epoch = b.Prev
	} else {
		if b.Prev != r.jepoch+1 {
			r.t.Fatalf("job barrier %d after job epoch %d", b.Prev, r.jepoch)
		}
		if err := r.st.CommitJob([]*storage.WriteBatch{r.sc.TakeBatch()}, false); err != nil {
			r.t.Fatalf("commit of job epoch %d: %v", b.Prev, err)
		}
		r.jepoch = b.Prev
	}
	if err := r.view.apply(r.pending); err != nil {
		r.t.Fatalf("epoch %d: a row arrived twice or a change before its row (I3): %v", b.Prev, err)
	}
	r.pending = nil
	return m, true
}

// mustBarrier expects the next message to be a barrier, within limit.
func (r *scanRig) mustBarrier(what string) *Barrier {
	r.t.Helper()
	m, ok := r.next(waitLimit)
	if !ok {
		r.t.Fatalf("%s: no barrier within %v", what, waitLimit)
	}
	if m.Barrier == nil {
		r.t.Fatalf("%s: got a chunk of %d rows, want a barrier (I2)", what, r.chunkSizes[len(r.chunkSizes)-1])
	}
	return m.Barrier
}

// mustChunk expects the next message to be a chunk and returns its size.
func (r *scanRig) mustChunk(what string) int {
	r.t.Helper()
	m, ok := r.next(waitLimit)
	if !ok || m.Chunk == nil {
		r.t.Fatalf("%s: want a chunk, got ok=%v barrier=%v", what, ok, m.Barrier != nil)
	}
	return r.chunkSizes[len(r.chunkSizes)-1]
}

// idle expects the scan to emit nothing for d.
func (r *scanRig) idle(what string, d time.Duration) {
	r.t.Helper()
	if m, ok := r.next(d); ok {
		r.t.Fatalf("%s: a paused scan emitted %v (I2)", what, describe(m))
	}
}

func describe(m Message) string {
	if m.Chunk != nil {
		return "a chunk"
	}
	return "a barrier"
}

// rowsRead is the scan's published rows read.
func (r *scanRig) rowsRead() int64 {
	_, read, _, _ := r.prog.Snapshot()
	return read
}

// finish runs the scan (unthrottled) until it has drained the log
// store, joins it, and runs it until it follows upstream; then checks
// the view equals the upstream table exactly once.
func (r *scanRig) finish() {
	r.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for i := 0; ; i++ {
		select {
		case <-r.prog.Done():
			r.barrier(nil)
			for !r.settled() {
				r.mustBarrier("final")
			}
			r.check()
			return
		default:
		}
		if time.Now().After(deadline) {
			r.t.Fatal("an unpaused backfill never caught up")
		}
		if !r.prepared && r.settled() && r.prog.Drained() {
			r.join()
		} else if i%4 == 0 && len(r.ch) == 0 && len(r.jobCh) == 0 {
			r.barrier(nil)
		}
		r.next(100 * time.Millisecond) // times out when drained or following
	}
}

func (r *scanRig) check() {
	r.t.Helper()
	want := multisetOf(tableRows(r.t, r.st, r.up))
	if d := r.view.diff(want); d != "" {
		r.t.Fatalf("view differs from its upstream (I3: a gap or a duplicate):\n%s", firstLines(d, 10))
	}
	if want2 := multisetOf(r.rel.snapshot()); r.view.diff(want2) != "" {
		r.t.Fatal("upstream table differs from what was written")
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines[n] = "..."
	}
	return strings.Join(lines, "\n")
}

// TestStreamScanPauseStopsSnapshot: from the call after a pausing barrier
// no snapshot chunk leaves the scan, while barriers pass and upstream
// chunks go to the log store; progress stays exactly constant. A resuming
// barrier continues from where the snapshot stood: the view ends equal to
// the upstream with every row and change once.
func TestStreamScanPauseStopsSnapshot(t *testing.T) {
	r := newScanRig(t, 5000, 1)
	r.start(ScanOptions{})
	r.barrier(nil) // the Add barrier: E0 = 2
	r.mustBarrier("first")
	r.mustChunk("snapshot 1")
	r.write(20)
	r.barrier(nil)
	r.mustBarrier("epoch 3") // upstream handled before the next chunk
	r.mustChunk("snapshot 2")
	r.barrier(pause())
	r.mustBarrier("pause")
	read := r.rowsRead()
	if read != 2*scanChunkRows {
		t.Fatalf("rows read %d, want %d", read, 2*scanChunkRows)
	}
	r.idle("right after the pause", 250*time.Millisecond)
	logged := 0
	for i := range 5 {
		r.write(30)
		logged++
		r.barrier(nil)
		r.mustBarrier("paused epoch")
		if i%2 == 0 {
			r.idle("paused, upstream idle", 150*time.Millisecond)
		}
		if got := r.rowsRead(); got != read {
			t.Fatalf("paused scan's progress moved: %d -> %d rows read", read, got)
		}
	}
	if _, _, _, lag := r.prog.Snapshot(); lag == 0 {
		t.Fatal("upstream changes during the pause were not logged")
	}
	// A throttle of another job changes nothing.
	r.barrier(&ThrottleMutation{Job: scanTestJob + 1})
	r.mustBarrier("other job")
	r.idle("after another job's resume", 150*time.Millisecond)
	// Pausing twice, then resuming once, resumes.
	r.barrier(pause())
	r.mustBarrier("pause again")
	r.barrier(resume())
	r.mustBarrier("resume")
	if n := r.mustChunk("after resume"); n != scanChunkRows {
		t.Fatalf("first chunk after resume has %d rows", n)
	}
	r.finish()
}

// TestStreamScanPauseInLogStore: a pause in the log-store phase holds the
// replay too (nothing but barriers leaves), and upstream changes keep
// being logged.
func TestStreamScanPauseInLogStore(t *testing.T) {
	r := newScanRig(t, 300, 2)
	r.start(ScanOptions{})
	r.barrier(nil)
	r.mustBarrier("first")
	for range 40 {
		r.write(40)
	}
	r.barrier(nil) // logs them
	r.mustBarrier("logged")
	if n := r.mustChunk("the whole snapshot"); n != 300 {
		t.Fatalf("snapshot chunk of %d rows", n)
	}
	// A chunk may stop one row short rather than cut an update pair.
	if n := r.mustChunk("log store 1"); n != scanChunkRows && n != scanChunkRows-1 {
		t.Fatalf("log-store chunk of %d rows", n)
	}
	r.barrier(pause())
	r.mustBarrier("pause")
	ph, read, _, lag := r.prog.Snapshot()
	if ph != PhaseLogStore || lag == 0 {
		t.Fatalf("phase %s with %d logged changes pending, want the log store with some", ph, lag)
	}
	r.idle("paused before the log replay", 200*time.Millisecond)
	for range 3 {
		r.write(10)
		r.barrier(nil)
		r.mustBarrier("paused epoch")
	}
	r.idle("paused", 100*time.Millisecond)
	if _, read2, _, lag2 := r.prog.Snapshot(); read2 != read || lag2 <= lag {
		t.Fatalf("paused in the log store: rows read %d -> %d, log %d -> %d", read, read2, lag, lag2)
	}
	r.barrier(resume())
	r.mustBarrier("resume")
	r.finish()
}

// TestStreamScanResumeFromPersistedPosition: a scan that emitted chunks
// after its last checkpoint crashes while a pause is committed; the
// rebuilt scan (Resume, Paused as the catalog says) emits nothing while
// paused, takes upstream writes, and once resumed continues from the
// persisted position: the uncommitted chunk's rows come again (they never
// reached the view), nothing twice.
func TestStreamScanResumeFromPersistedPosition(t *testing.T) {
	r := newScanRig(t, 6000, 3)
	r.start(ScanOptions{})
	r.barrier(nil)
	r.mustBarrier("first")
	r.mustChunk("snapshot 1")
	r.write(25)
	r.barrier(pause())
	r.mustBarrier("pause")
	persisted := r.rowsRead()
	r.write(25)
	r.barrier(nil)
	r.mustBarrier("paused epoch")
	// Emitted but never committed: lost with the crash.
	r.barrier(resume())
	r.mustBarrier("resume")
	r.mustChunk("snapshot 2 (uncommitted)")
	r.crash()

	r.start(ScanOptions{Paused: true})
	r.idle("rebuilt paused", 250*time.Millisecond)
	if got := r.rowsRead(); got != persisted {
		t.Fatalf("resumed at %d rows read, the last checkpoint had %d", got, persisted)
	}
	for range 3 {
		r.write(30)
		r.barrier(nil)
		r.mustBarrier("paused epoch after rebuild")
	}
	r.idle("rebuilt, still paused", 150*time.Millisecond)
	r.barrier(resume())
	r.mustBarrier("resume after rebuild")
	r.finish()
}

// TestStreamScanResumeAfterCatchingUp: a scan that finishes its snapshot
// (and an empty log store) between two barriers saves that at the next
// barrier, which it passes already following upstream; a rebuild after
// that epoch committed does not read the last rows again (I3). Before
// the fix the follow phase saved nothing, and the rebuilt scan emitted
// the rows of its last snapshot chunk a second time.
func TestStreamScanResumeAfterCatchingUp(t *testing.T) {
	r := newScanRig(t, scanChunkRows+300, 5)
	r.start(ScanOptions{})
	r.barrier(nil)
	r.mustBarrier("first")
	r.mustChunk("snapshot 1")
	r.barrier(nil)
	r.mustBarrier("mid-snapshot")
	r.mustChunk("snapshot 2, the last")
	r.idle("snapshot and log store done", 100*time.Millisecond)
	r.barrier(nil)
	r.mustBarrier("drained")
	if !r.prog.Drained() {
		t.Fatal("the scan did not report the log store drained")
	}
	r.join()
	r.idle("joined, log store empty", 100*time.Millisecond) // the scan follows upstream from here
	r.barrier(nil)
	r.mustBarrier("first after the join")
	select {
	case <-r.prog.Done():
	default:
		t.Fatal("the scan has not caught up")
	}
	r.crash()
	r.start(ScanOptions{})
	r.finish()
}

// TestStreamScanRateLimitAtBarrier: a rate limit change applies from the
// barrier that carries it: chunk sizing changes with the first chunk
// after it, and the rows per second follow the new limit.
func TestStreamScanRateLimitAtBarrier(t *testing.T) {
	r := newScanRig(t, 8000, 4)
	r.start(ScanOptions{RateLimit: 200})
	r.barrier(nil)
	r.mustBarrier("first")
	start := time.Now()
	rows := 0
	for range 6 {
		n := r.mustChunk("at 200 rows/s")
		if n != 20 {
			t.Fatalf("chunk of %d rows at 200 rows/s, want 20", n)
		}
		rows += n
	}
	// 120 rows at 200/s: the first chunk is free, the other 5 wait 0.1 s each.
	if el := time.Since(start); el < 450*time.Millisecond || el > 2*time.Second {
		t.Fatalf("120 rows at 200 rows/s took %v", el)
	}
	r.barrier(rate(5000))
	r.mustBarrier("rate 5000")
	if n := r.mustChunk("first chunk at 5000 rows/s"); n != 500 {
		t.Fatalf("first chunk after the change has %d rows, want 500", n)
	}
	start = time.Now()
	for range 4 {
		if n := r.mustChunk("at 5000 rows/s"); n != 500 {
			t.Fatalf("chunk of %d rows at 5000 rows/s", n)
		}
	}
	// 2000 rows at 5000/s, after one free chunk: about 0.4 s.
	if el := time.Since(start); el < 300*time.Millisecond || el > 2*time.Second {
		t.Fatalf("2000 rows at 5000 rows/s took %v", el)
	}
	// Per-scan share: a job of 4 scans at 400 rows/s gives each 100/s.
	r.scan.opts.Scans = 4
	r.barrier(rate(400))
	r.mustBarrier("rate 400 over 4 scans")
	if n := r.mustChunk("at 100 rows/s"); n != 10 {
		t.Fatalf("chunk of %d rows at 100 rows/s per scan", n)
	}
	r.barrier(rate(0)) // DEFAULT: no limit
	r.mustBarrier("no limit")
	start = time.Now()
	if n := r.mustChunk("unlimited"); n != scanChunkRows {
		t.Fatalf("unlimited chunk of %d rows", n)
	}
	r.mustChunk("unlimited 2")
	if el := time.Since(start); el > time.Second {
		t.Fatalf("unlimited chunks took %v: the old limit's wait survived the barrier", el)
	}
	// A pause arriving while the scan waits out the rate limit holds it.
	r.barrier(rate(10))
	r.mustBarrier("rate 10")
	r.mustChunk("1 row at 10/s")
	r.jsent++
	late := Message{Barrier: &Barrier{Prev: r.jsent, Curr: r.jsent + 1, Mutation: pause()}}
	go func() {
		time.Sleep(20 * time.Millisecond)
		r.jobCh <- late
	}()
	r.mustBarrier("pause during the rate wait")
	r.idle("paused after a rate wait", 300*time.Millisecond)
	r.barrier(resume())
	r.mustBarrier("resume")
	r.finish()
}

// TestStreamScanThrottleStorm: random throttles (pause, resume, rates,
// several in a row), writes and barriers; after each pausing barrier no
// chunk leaves until a resuming one; the view ends exact.
func TestStreamScanThrottleStorm(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		r := newScanRig(t, 6000, 10+seed)
		rng := rand.New(rand.NewPCG(seed, 5))
		r.start(ScanOptions{RateLimit: 5_000})
		r.barrier(nil)
		r.mustBarrier("first")
		paused := false
		for step := 0; step < 300; step++ {
			switch k := rng.IntN(10); {
			case k < 3:
				r.write(1 + rng.IntN(20))
			case k < 7:
				var m Mutation
				switch rng.IntN(5) {
				case 0, 1:
					m = pause()
				case 2:
					m = resume()
				case 3:
					m = rate(int64(rng.IntN(3)) * 5_000) // 0 is no limit
				default:
					m = nil
				}
				r.barrier(m)
				// Drain up to that barrier: only barriers while paused.
				for {
					// Once the backfill is done the scan follows upstream:
					// its chunks are not backfill and pass a pause.
					following := r.scan.phase == phaseFollow
					msg, ok := r.next(waitLimit)
					if !ok {
						t.Fatalf("seed %d step %d: scan stalled", seed, step)
					}
					if msg.Chunk != nil && paused && !following {
						t.Fatalf("seed %d step %d: chunk emitted while paused (I2)", seed, step)
					}
					if msg.Barrier != nil {
						if tm, ok := msg.Barrier.Mutation.(*ThrottleMutation); ok {
							paused = tm.Paused
						}
						if msg.Barrier.Prev == r.lastSent() {
							break
						}
					}
				}
			default:
				if paused && r.scan.phase != phaseFollow {
					r.idle("storm, paused", 5*time.Millisecond)
				} else if r.scan.phase != phaseFollow {
					r.next(300 * time.Millisecond) // times out only on the switch to following
				}
			}
		}
		r.barrier(resume())
		r.barrier(rate(0))
		for !r.settled() {
			r.next(waitLimit)
		}
		r.finish()
	}
}

// TestI2CheckFires: under -tags invariants, a chunk emitted by a paused
// scan panics with the invariant's name.
func TestI2CheckFires(t *testing.T) {
	if !invariants {
		t.Skip("the I2 check is compiled in only with -tags invariants")
	}
	s := NewStreamScan(&Receiver{Typ: kvTypes}, kvLayout(1), nil, ScanOptions{Paused: true, Job: 3})
	s.phase = phaseSnapshot
	b := chunk.NewBuilder(kvTypes)
	defer b.Release()
	b.Append(chunk.Insert, trow{int64(1), int64(1)})
	m := Message{Chunk: b.Build()}
	defer m.Chunk.Release()
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.Contains(s, "invariant I2 violated") {
			t.Fatalf("recovered %v, want an I2 violation", p)
		}
	}()
	s.checkPausedEmit(m)
	t.Fatal("no panic")
}
