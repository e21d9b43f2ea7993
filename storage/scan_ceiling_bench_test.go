//go:build linux

package storage

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
)

// The benchmarks of this file measure the ceilings of a backfill's
// snapshot read (issue 22): how many nanoseconds a key each layer of the
// scan costs over scanBenchTable's rows, bulk-loaded as `streamdb bench`'s
// INSERT ... SELECT leaves them (ingested sstables, every vnode one
// contiguous range), and how fast the same scan would be with other
// sstable settings or with rows stored as blocks of many rows per key.
// STREAMDB_SCAN_ROWS sets the rows (default 5M: the bench's table);
// STREAMDB_SCAN_CASES, a comma-separated list of case names ("keys",
// "chunk", "chunk/warm", ...), runs only those (the -test.bench pattern
// cannot tell "chunk" from "chunk/warm": a case's name is two levels).
// Each iteration reopens the store first (untimed), so blocks come from
// the files as they do in a backfill of freshly loaded rows ("cold");
// the "warm" runs keep the block cache. Findings: BLOCK_LAYOUT.md.
// Linux only: CPU time per thread is RUSAGE_THREAD.

func ceilingRows() int {
	if v, err := strconv.Atoi(os.Getenv("STREAMDB_SCAN_ROWS")); err == nil && v > 0 {
		return v
	}
	return 5_000_000
}

// vnodeIDs returns ids 1..n grouped by vnode, ascending within each: the
// order of their keys (memcmp of a bigint is ascending in the id).
func vnodeIDs(n int) [][]int64 {
	out := make([][]int64, NumVnodes)
	row := make([]types.Datum, 3)
	for i := int64(1); i <= int64(n); i++ {
		row[0] = i
		v := scanBenchTable.Vnode(row)
		out[v] = append(out[v], i)
	}
	return out
}

// ceilingLayout is how the rows are written: one row a key (rowsPerKey
// 0), or blocks of rowsPerKey rows a key, row-packed or columnar.
type ceilingLayout struct {
	rowsPerKey int
	columnar   bool
	// tableBlocks: the rows as a bulk load into an empty table writes
	// them (IngestWriter.WriteBlocks), read by ChunkScan.
	tableBlocks bool
}

// ceilingStore is a store in dir holding the rows, written by writer
// options tweaked by tweak.
type ceilingStore struct {
	dir   string
	opts  Options
	n     int
	bytes int64
}

func buildCeilingStore(b *testing.B, dir string, ids [][]int64, n int, layout ceilingLayout, tweak func(*pebble.LevelOptions)) *ceilingStore {
	b.Helper()
	cs := &ceilingStore{dir: dir, opts: Options{NoSync: true}, n: n}
	s, err := Open(cs.dir, cs.opts)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if tweak != nil {
		tweak(&s.popts.Levels[0])
	}
	iw, err := s.NewIngestWriter()
	if err != nil {
		b.Fatal(err)
	}
	if layout.tableBlocks {
		iw.WriteBlocks(scanBenchTable)
	}
	row := make([]types.Datum, 3)
	var key, val []byte
	for v, vids := range ids {
		if layout.rowsPerKey == 0 {
			for _, id := range vids {
				row[0], row[1], row[2] = id, id%1000, id*7
				if key, err = scanBenchTable.appendRowKey(key[:0], row); err != nil {
					b.Fatal(err)
				}
				if val, err = EncodeRow(val[:0], scanBenchTable.Types, row); err != nil {
					b.Fatal(err)
				}
				if err := iw.Add(key, val); err != nil {
					b.Fatal(err)
				}
			}
			continue
		}
		for lo := 0; lo < len(vids); lo += layout.rowsPerKey {
			blk := vids[lo:min(lo+layout.rowsPerKey, len(vids))]
			if key, err = scanBenchTable.appendPKKey(key[:0], uint16(v), []types.Datum{blk[0]}); err != nil {
				b.Fatal(err)
			}
			if layout.columnar {
				val = encodeColumnarBlock(val[:0], blk)
			} else {
				val = encodeRowBlock(b, val[:0], blk)
			}
			if err := iw.Add(key, val); err != nil {
				b.Fatal(err)
			}
		}
	}
	in, err := iw.Finish()
	if err != nil {
		b.Fatal(err)
	}
	w := s.NewWriteBatch()
	if err := w.AddIngest(in); err != nil {
		b.Fatal(err)
	}
	if err := s.CommitEpoch(s.CommittedEpoch()+1, []*WriteBatch{w}); err != nil {
		b.Fatal(err)
	}
	m := s.db.Metrics()
	for i := range m.Levels {
		cs.bytes += m.Levels[i].TablesSize
	}
	return cs
}

// encodeRowBlock packs the rows of ids: a uvarint count, then each row as
// a uvarint length and its EncodeRow bytes.
func encodeRowBlock(b *testing.B, buf []byte, ids []int64) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	row := make([]types.Datum, 3)
	var enc []byte
	for _, id := range ids {
		row[0], row[1], row[2] = id, id%1000, id*7
		var err error
		if enc, err = EncodeRow(enc[:0], scanBenchTable.Types, row); err != nil {
			b.Fatal(err)
		}
		buf = binary.AppendUvarint(buf, uint64(len(enc)))
		buf = append(buf, enc...)
	}
	return buf
}

// encodeColumnarBlock packs the rows of ids column by column: a uvarint
// count, then each column's values little-endian at their width (no
// NULLs in this table: a real format would add a validity bitmap).
func encodeColumnarBlock(buf []byte, ids []int64) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(ids)))
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id))
	}
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(id%1000))
	}
	for _, id := range ids {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(id*7))
	}
	return buf
}

func (cs *ceilingStore) open(b *testing.B, cache int64) *Store {
	o := cs.opts
	o.CacheSize = cache
	s, err := Open(cs.dir, o)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// scanLevel is how much of a backfill's per-row work a run does.
type scanLevel int

const (
	levelKeys  scanLevel = iota // position on each key
	levelValue                  // and take its value (no copy)
	levelChunk                  // and decode it into 1024-row chunks (the backfill's ChunkScan)
)

// ceilingRun is one way of reading the rows.
type ceilingRun struct {
	level     scanLevel
	oneIter   bool // one iterator over the table instead of one per vnode
	setBounds bool // one iterator, re-bounded per vnode with SetBounds
	warm      bool // keep the store (and its block cache) between iterations
	cache     int64
	layout    ceilingLayout
}

func runCeiling(b *testing.B, cs *ceilingStore, r ceilingRun) {
	s := cs.open(b, r.cache)
	defer func() { s.Close() }()
	// CPU time is the figure that holds on a shared machine: the
	// thread's (LockOSThread: the scan's own work, GC assists included)
	// and the process's (GC workers and Pebble's goroutines too).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var threadCPU, procCPU time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if !r.warm {
			b.StopTimer()
			if err := s.Close(); err != nil {
				b.Fatal(err)
			}
			s = cs.open(b, r.cache)
			b.StartTimer()
		}
		t0, p0 := cpuTime(syscall.RUSAGE_THREAD), cpuTime(syscall.RUSAGE_SELF)
		var rows int
		switch {
		case r.layout.rowsPerKey > 0:
			rows = scanBlocks(b, s, r)
		case r.level == levelChunk:
			rows = scanChunks(b, s)
		default:
			rows = scanRaw(b, s, r)
		}
		threadCPU += cpuTime(syscall.RUSAGE_THREAD) - t0
		procCPU += cpuTime(syscall.RUSAGE_SELF) - p0
		if rows != cs.n {
			b.Fatalf("scanned %d rows, want %d", rows, cs.n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cs.n*b.N), "ns/row")
	b.ReportMetric(float64(threadCPU.Nanoseconds())/float64(cs.n*b.N), "thread-cpu-ns/row")
	b.ReportMetric(float64(procCPU.Nanoseconds())/float64(cs.n*b.N), "proc-cpu-ns/row")
	b.ReportMetric(float64(cs.bytes)/float64(cs.n), "B/row-on-disk")
}

// cpuTime is the user and system CPU time of who (RUSAGE_THREAD or
// RUSAGE_SELF).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// scanRaw walks the keys with Pebble's iterator alone.
func scanRaw(b *testing.B, s *Store, r ceilingRun) int {
	snap := s.Snapshot()
	defer snap.Close()
	pr, _ := snap.reader()
	rows := 0
	var sink int
	walk := func(it *pebble.Iterator) {
		for ok := it.First(); ok; ok = it.Next() {
			rows++
			if r.level >= levelValue {
				v, err := it.ValueAndErr()
				if err != nil {
					b.Fatal(err)
				}
				sink += len(v)
			}
		}
		if err := it.Error(); err != nil {
			b.Fatal(err)
		}
	}
	switch {
	case r.oneIter:
		lower := appendTablePrefix(nil, scanBenchTable.ID)
		it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
		if err != nil {
			b.Fatal(err)
		}
		walk(it)
		it.Close()
	case r.setBounds:
		var it *pebble.Iterator
		for v := range uint16(NumVnodes) {
			lower, upper, _ := scanBenchTable.vnodeBounds(v, nil)
			if it == nil {
				var err error
				if it, err = pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper}); err != nil {
					b.Fatal(err)
				}
			} else {
				it.SetBounds(lower, upper)
			}
			walk(it)
		}
		it.Close()
	default:
		for v := range uint16(NumVnodes) {
			lower, upper, _ := scanBenchTable.vnodeBounds(v, nil)
			it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
			if err != nil {
				b.Fatal(err)
			}
			walk(it)
			it.Close()
		}
	}
	_ = sink
	return rows
}

// scanChunks is StreamScan's snapshot loop: ChunkScan.AppendRows vnode
// by vnode into 1024-row chunks, LastRow of each chunk's last row and at
// each vnode's end (the backfill's position).
func scanChunks(b *testing.B, s *Store) int {
	snap := s.Snapshot()
	defer snap.Close()
	bld := chunk.NewBuilder(scanBenchTable.Types)
	defer bld.Release()
	dec := NewRowDecoder(scanBenchTable.Types)
	rows := 0
	for v := range uint16(NumVnodes) {
		sc := scanBenchTable.ScanVnodeChunks(snap, v, nil).Decoding(dec)
		for {
			if _, err := sc.AppendRows(bld, chunk.Insert, 1024); err != nil {
				b.Fatal(err)
			}
			if bld.Len() < 1024 {
				break // the vnode is done
			}
			if _, err := sc.LastRow(); err != nil {
				b.Fatal(err)
			}
			rows += 1024
			bld.Build().Release()
		}
		if _, err := sc.LastRow(); err != nil { // the vnode's position, as a backfill records it
			b.Fatal(err)
		}
		sc.Close()
	}
	rows += bld.Len()
	bld.Build().Release()
	return rows
}

// scanBlocks reads the block layouts into 1024-row chunks (a chunk ends
// after the block that fills it: blocks are not split).
func scanBlocks(b *testing.B, s *Store, r ceilingRun) int {
	snap := s.Snapshot()
	defer snap.Close()
	pr, _ := snap.reader()
	bld := chunk.NewBuilder(scanBenchTable.Types)
	defer bld.Release()
	dec := NewRowDecoder(scanBenchTable.Types)
	rows := 0
	for v := range uint16(NumVnodes) {
		lower, upper, _ := scanBenchTable.vnodeBounds(v, nil)
		it, err := pr.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			b.Fatal(err)
		}
		for ok := it.First(); ok; ok = it.Next() {
			val, err := it.ValueAndErr()
			if err != nil {
				b.Fatal(err)
			}
			if r.level < levelChunk {
				n, _ := binary.Uvarint(val)
				rows += int(n)
				continue
			}
			if r.layout.columnar {
				decodeColumnarBlock(b, bld, val)
			} else {
				decodeRowBlock(b, dec, bld, val)
			}
			if bld.Len() >= 1024 {
				rows += bld.Len()
				bld.Build().Release()
			}
		}
		it.Close()
	}
	rows += bld.Len()
	bld.Build().Release()
	return rows
}

func decodeRowBlock(b *testing.B, dec *RowDecoder, bld *chunk.Builder, val []byte) {
	n, k := binary.Uvarint(val)
	val = val[k:]
	for range n {
		l, k := binary.Uvarint(val)
		if err := dec.Append(bld, chunk.Insert, val[k:k+int(l)]); err != nil {
			b.Fatal(err)
		}
		val = val[k+int(l):]
	}
}

func decodeColumnarBlock(b *testing.B, bld *chunk.Builder, val []byte) {
	n64, k := binary.Uvarint(val)
	n := int(n64)
	val = val[k:]
	if len(val) != n*20 {
		b.Fatalf("columnar block of %d rows: %d bytes", n, len(val))
	}
	cols := bld.Columns()
	// Little-endian hosts only, as Arrow's own buffers.
	cols[0].(*array.Int64Builder).AppendValues(unsafe.Slice((*int64)(unsafe.Pointer(&val[0])), n), nil)
	cols[1].(*array.Int32Builder).AppendValues(unsafe.Slice((*int32)(unsafe.Pointer(&val[8*n])), n), nil)
	cols[2].(*array.Int64Builder).AppendValues(unsafe.Slice((*int64)(unsafe.Pointer(&val[12*n])), n), nil)
	for range n {
		bld.AppendedRow(chunk.Insert)
	}
}

// BenchmarkScanCeiling: ns/row of each layer and setting; see the file
// comment. Run with -benchtime=3x or so: an iteration scans every row.
func BenchmarkScanCeiling(b *testing.B) {
	n := ceilingRows()
	ids := vnodeIDs(n)
	const mb = 1 << 20
	stores := map[string]*ceilingStore{}
	root := b.TempDir()
	store := func(sb *testing.B, name string, layout ceilingLayout, tweak func(*pebble.LevelOptions)) *ceilingStore {
		if cs, ok := stores[name]; ok {
			return cs
		}
		cs := buildCeilingStore(sb, root+"/"+name, ids, n, layout, tweak)
		stores[name] = cs
		return cs
	}
	base := func(sb *testing.B) *ceilingStore { return store(sb, "base", ceilingLayout{}, nil) }
	blockSize := func(sz int) func(*pebble.LevelOptions) {
		return func(l *pebble.LevelOptions) { l.BlockSize = sz }
	}
	compress := func(p *sstable.CompressionProfile) func(*pebble.LevelOptions) {
		return func(l *pebble.LevelOptions) { l.Compression = func() *sstable.CompressionProfile { return p } }
	}
	type bm struct {
		name  string
		store func(*testing.B) *ceilingStore
		run   ceilingRun
	}
	cases := []bm{
		{"keys", base, ceilingRun{level: levelKeys}},
		{"keys/warm", base, ceilingRun{level: levelKeys, warm: true}},
		{"keys/one-iter", base, ceilingRun{level: levelKeys, oneIter: true}},
		{"keys/set-bounds", base, ceilingRun{level: levelKeys, setBounds: true}},
		{"value", base, ceilingRun{level: levelValue}},
		{"chunk", base, ceilingRun{level: levelChunk}},
		{"chunk/warm", base, ceilingRun{level: levelChunk, warm: true}},
		{"chunk/warm-cache8M", base, ceilingRun{level: levelChunk, warm: true, cache: 8 * mb}},
		{"chunk/warm-cache1G", base, ceilingRun{level: levelChunk, warm: true, cache: 1024 * mb}},
	}
	for _, sz := range []int{4 << 10, 64 << 10, 128 << 10} {
		name := fmt.Sprintf("block%dK", sz>>10)
		cases = append(cases, bm{"keys/" + name, func(sb *testing.B) *ceilingStore { return store(sb, name, ceilingLayout{}, blockSize(sz)) }, ceilingRun{level: levelKeys}},
			bm{"chunk/" + name, func(sb *testing.B) *ceilingStore { return store(sb, name, ceilingLayout{}, blockSize(sz)) }, ceilingRun{level: levelChunk}})
	}
	for _, p := range []*sstable.CompressionProfile{sstable.NoCompression, sstable.MinLZCompression, sstable.ZstdCompression} {
		name := "compress-" + p.Name
		cases = append(cases, bm{"keys/" + name, func(sb *testing.B) *ceilingStore { return store(sb, name, ceilingLayout{}, compress(p)) }, ceilingRun{level: levelKeys}},
			bm{"chunk/" + name, func(sb *testing.B) *ceilingStore { return store(sb, name, ceilingLayout{}, compress(p)) }, ceilingRun{level: levelChunk}})
	}
	cases = append(cases, bm{"chunk/no-filter", func(sb *testing.B) *ceilingStore {
		return store(sb, "nofilter", ceilingLayout{}, func(l *pebble.LevelOptions) { l.FilterPolicy = nil })
	}, ceilingRun{level: levelChunk}})
	for _, per := range []int{16, 128, 1024} {
		for _, col := range []bool{false, true} {
			lay := ceilingLayout{rowsPerKey: per, columnar: col}
			kind := "rowpack"
			if col {
				kind = "columnar"
			}
			name := fmt.Sprintf("blocks-%s-%d", kind, per)
			cs := func(sb *testing.B) *ceilingStore { return store(sb, name, lay, nil) }
			cases = append(cases, bm{name + "/keys", cs, ceilingRun{level: levelKeys, layout: lay}},
				bm{name + "/chunk", cs, ceilingRun{level: levelChunk, layout: lay}})
		}
	}
	tblocks := func(sb *testing.B) *ceilingStore {
		return store(sb, "table-blocks", ceilingLayout{tableBlocks: true}, nil)
	}
	cases = append(cases, bm{"table-blocks/chunk", tblocks, ceilingRun{level: levelChunk}},
		bm{"table-blocks/chunk-warm", tblocks, ceilingRun{level: levelChunk, warm: true}})
	only := os.Getenv("STREAMDB_SCAN_CASES")
	for _, c := range cases {
		if only != "" && !slices.Contains(strings.Split(only, ","), c.name) {
			continue
		}
		b.Run(c.name, func(b *testing.B) { runCeiling(b, c.store(b), c.run) })
	}
}

// BenchmarkDecodeCeiling decodes 1024-row chunks of scanBenchTable's
// encoded rows without Pebble: row by row (RowDecoder.Append, what
// ChunkScan.AppendTo does) and in batches (what ChunkScan.AppendRows
// does), in thread CPU ns a row.
func BenchmarkDecodeCeiling(b *testing.B) {
	ts := scanBenchTable.Types
	var rows [][]byte
	for g := int64(1); g <= 1024; g++ {
		buf, err := EncodeRow(nil, ts, []types.Datum{g * 4973, g % 1000, g * 4973 * 7})
		if err != nil {
			b.Fatal(err)
		}
		rows = append(rows, buf)
	}
	run := func(b *testing.B, chunkRows func(*RowDecoder, *chunk.Builder)) {
		cb := chunk.NewBuilder(ts)
		defer cb.Release()
		dec := NewRowDecoder(ts)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ReportAllocs()
		t0 := cpuTime(syscall.RUSAGE_THREAD)
		for b.Loop() {
			chunkRows(dec, cb)
			cb.Build().Release()
		}
		b.ReportMetric(float64((cpuTime(syscall.RUSAGE_THREAD)-t0).Nanoseconds())/float64(b.N*len(rows)), "thread-cpu-ns/row")
	}
	b.Run("row", func(b *testing.B) {
		run(b, func(dec *RowDecoder, cb *chunk.Builder) {
			for _, r := range rows {
				if err := dec.Append(cb, chunk.Insert, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("batch", func(b *testing.B) {
		run(b, func(dec *RowDecoder, cb *chunk.Builder) {
			dec.beginBatch(cb, len(rows))
			for _, r := range rows {
				if err := dec.stageRow(r); err != nil {
					b.Fatal(err)
				}
			}
			dec.flush(cb, chunk.Insert)
		})
	})
}
