//go:build linux

package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/streamdb/streamdb"
)

// The api scenario measures the Go API in process (no wire protocol):
//
//   - api/copy: DB.CopyFrom of Rows rows (COPY ... FROM STDIN, text
//     format), one statement, the data generated as COPY reads it;
//   - api/append: DB.AppendReader of the same rows as Arrow record
//     batches of apiBatchRows rows, one statement, each batch built as
//     Append reads it; its compared column is its time over COPY's;
//   - api/query-collect: SELECT * of the Rows-row table, every row's
//     Values kept in memory (what Rows did before it streamed);
//   - api/query-stream: the same read to the end with Rows.Next and Scan.
//
// The query steps' peak is the Go heap in use (runtime.MemStats
// HeapInuse, sampled every apiSampleRows rows) above what it was before the query,
// after a GC: the memory a query holds. Their compared column is the
// peak over query-collect's.

// apiBatchRows is the size of the Arrow batches of api/append.
const apiBatchRows = 64 << 10

const apiTable = "(id bigint PRIMARY KEY, k int, v double precision, s text)"

func (s *session) api() ([]Result, error) {
	st, ok := s.t.(*streamdbTarget)
	if !ok {
		return nil, nil // the Go API is streamdb's own
	}
	db, n := st.db, s.cfg.Rows
	for _, q := range []string{"CREATE TABLE api_copy " + apiTable, "CREATE TABLE api_append " + apiTable} {
		if err := s.exec(q); err != nil {
			return nil, err
		}
	}
	copyRes := s.apiTimed("api/copy", n, func() error {
		res, err := db.CopyFrom(s.ctx, "COPY api_copy FROM STDIN", &apiCopyData{n: n})
		return checkCount(res.RowsAffected, err, n)
	})
	appendRes := s.apiTimed("api/append", n, func() error {
		rdr := newAPIBatches(n)
		defer rdr.Release()
		got, err := db.AppendReader(s.ctx, "api_append", rdr)
		return checkCount(got, err, n)
	})
	if copyRes.Err == nil && appendRes.Err == nil {
		appendRes.Note = fmt.Sprintf("of api/copy: time %.2fx", appendRes.Elapsed.Seconds()/copyRes.Elapsed.Seconds())
		copyRes.Note = "of api/copy: time 1.00x"
	}
	collect := s.apiQuery(db, "api/query-collect", n, true)
	stream := s.apiQuery(db, "api/query-stream", n, false)
	if collect.Err == nil && stream.Err == nil {
		stream.Note = fmt.Sprintf("of query-collect: heap %.3fx", float64(stream.PeakRSS)/float64(max(1, collect.PeakRSS)))
		collect.Note = "of query-collect: heap 1.000x"
	}
	out := []Result{copyRes, appendRes, collect, stream}
	fmt.Fprintf(s.cfg.Log, "api: %d rows: COPY %.2fs, Append %.2fs (%.2fx COPY's time); SELECT peak heap: collected %.1f MiB, streamed %.1f MiB\n",
		n, copyRes.Elapsed.Seconds(), appendRes.Elapsed.Seconds(), appendRes.Elapsed.Seconds()/max(1e-9, copyRes.Elapsed.Seconds()),
		float64(collect.PeakRSS)/(1<<20), float64(stream.PeakRSS)/(1<<20))
	for _, r := range out {
		if r.Err != nil {
			return out, r.Err
		}
	}
	return out, nil
}

func checkCount(got int64, err error, want int64) error {
	if err == nil && got != want {
		err = fmt.Errorf("loaded %d rows, want %d", got, want)
	}
	return err
}

// apiTimed times f, with the process's peak RSS (and the profiles the
// run asks for).
func (s *session) apiTimed(scenario string, rows int64, f func() error) Result {
	s.t.resetPeak(s.c)
	stop, err := s.startProfile(scenario)
	if err != nil {
		return Result{System: s.t.name(), Scenario: scenario, Err: err}
	}
	start := time.Now()
	err = f()
	elapsed := time.Since(start)
	if perr := stop(); err == nil {
		err = perr
	}
	return Result{System: s.t.name(), Scenario: scenario, Rows: rows, Elapsed: elapsed, PeakRSS: s.t.peak(s.c), Err: err}
}

// apiQuery reads api_copy to the end, keeping every row's values when
// collect is set; its PeakRSS is the peak heap in use above the start's.
func (s *session) apiQuery(db *streamdb.DB, scenario string, want int64, collect bool) Result {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, uint64(0)
	sample := func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > base {
			peak = max(peak, ms.HeapInuse-base)
		}
	}
	start := time.Now()
	n, err := readAPIRows(s.ctx, db, collect, sample)
	elapsed := time.Since(start)
	if err == nil && int64(n) != want {
		err = fmt.Errorf("read %d rows, want %d", n, want)
	}
	return Result{System: s.t.name(), Scenario: scenario, Rows: want, Elapsed: elapsed, PeakRSS: int64(peak), Err: err}
}

// apiSampleRows is how often (in rows) apiQuery samples the heap.
const apiSampleRows = 4096

// readAPIRows reads api_copy to the end, calling sample every
// apiSampleRows rows and at the end, and returns how many rows it read.
func readAPIRows(ctx context.Context, db *streamdb.DB, collect bool, sample func()) (int, error) {
	rows, err := db.Query(ctx, "SELECT id, k, v, s FROM api_copy")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var all [][]any
	n := 0
	for rows.Next() {
		if n++; n%apiSampleRows == 0 {
			sample()
		}
		if collect {
			all = append(all, rows.Values())
			continue
		}
		var id, k int64
		var v float64
		var str string
		if err := rows.Scan(&id, &k, &v, &str); err != nil {
			return n, err
		}
	}
	sample()
	runtime.KeepAlive(all)
	return n, rows.Err()
}

// Row i of the api tables is (i, apiK(i), apiV(i), "name-i").
func apiK(i int64) int64   { return i % 1000 }
func apiV(i int64) float64 { return float64(i) / 2 }

func apiRowText(buf []byte, i int64) []byte {
	buf = strconv.AppendInt(buf, i, 10)
	buf = append(buf, '\t')
	buf = strconv.AppendInt(buf, apiK(i), 10)
	buf = append(buf, '\t')
	buf = strconv.AppendFloat(buf, apiV(i), 'g', -1, 64)
	buf = append(buf, "\tname-"...)
	buf = strconv.AppendInt(buf, i, 10)
	return append(buf, '\n')
}

// apiCopyData is the COPY text data of rows 1..n, generated as it is
// read.
type apiCopyData struct {
	n, i int64
	buf  bytes.Buffer
}

func (d *apiCopyData) Read(p []byte) (int, error) {
	for d.buf.Len() < len(p) && d.i < d.n {
		d.i++
		d.buf.Write(apiRowText(d.buf.AvailableBuffer(), d.i))
	}
	if d.buf.Len() == 0 {
		return 0, io.EOF
	}
	return d.buf.Read(p)
}

// apiBatches is rows 1..n as Arrow record batches, each built when Next
// asks for it: an array.RecordReader.
type apiBatches struct {
	refs   atomic.Int64
	n, i   int64
	schema *arrow.Schema
	b      *array.RecordBuilder
	cur    arrow.RecordBatch
	sbuf   []byte
}

var _ array.RecordReader = (*apiBatches)(nil)

func newAPIBatches(n int64) *apiBatches {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	a := &apiBatches{n: n, schema: schema, b: array.NewRecordBuilder(memory.DefaultAllocator, schema)}
	a.refs.Store(1)
	return a
}

func (a *apiBatches) Next() bool {
	if a.cur != nil {
		a.cur.Release()
		a.cur = nil
	}
	if a.i >= a.n {
		return false
	}
	ids := a.b.Field(0).(*array.Int64Builder)
	ks := a.b.Field(1).(*array.Int32Builder)
	vs := a.b.Field(2).(*array.Float64Builder)
	ss := a.b.Field(3).(*array.StringBuilder)
	for j := 0; j < apiBatchRows && a.i < a.n; j++ {
		a.i++
		ids.Append(a.i)
		ks.Append(int32(apiK(a.i)))
		vs.Append(apiV(a.i))
		a.sbuf = strconv.AppendInt(append(a.sbuf[:0], "name-"...), a.i, 10)
		ss.BinaryBuilder.Append(a.sbuf)
	}
	a.cur = a.b.NewRecordBatch()
	return true
}

func (a *apiBatches) Schema() *arrow.Schema          { return a.schema }
func (a *apiBatches) RecordBatch() arrow.RecordBatch { return a.cur }
func (a *apiBatches) Record() arrow.RecordBatch      { return a.cur }
func (a *apiBatches) Err() error                     { return nil }
func (a *apiBatches) Retain()                        { a.refs.Add(1) }

func (a *apiBatches) Release() {
	if a.refs.Add(-1) == 0 {
		if a.cur != nil {
			a.cur.Release()
			a.cur = nil
		}
		a.b.Release()
	}
}
