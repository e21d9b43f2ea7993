package write

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Staging of COPY FROM (and of INSERT, which stages its rows the same
// way: dml.go).
//
// A COPY must stream (a 10M-row load cannot be held in memory) and yet be
// all or nothing: a bad row on line 9,000,000 must leave the table as it
// was. streamdb commits a statement as one epoch, by sending all of its
// changes into the table's source under the source lock, so nothing may
// be sent before every row is known to be good. A COPY therefore runs in
// two phases:
//
//  1. Stage, while the client sends: each row is parsed and checked on its
//     own (types, NOT NULL) and appended to a chunk, and its storage key,
//     with its line number and its encoded value, to a key buffer (for
//     COPY, a chunk at a time on the stage's writer goroutine:
//     copy_pipe.go). Chunks are held in memory up
//     to copyMemBytes, then written to a temporary file (Arrow IPC, in
//     order); keys are sorted into runs of copyKeyRunBytes, each run
//     written to a temporary file when full (by a goroutine of its own,
//     while the next run fills: copy_keys.go). No lock is held: other
//     statements on the table run meanwhile.
//  2. Commit, at the end of the data: under the table's DML lock (so the
//     table cannot change until the commit), the key runs are merged in
//     key order; equal adjacent keys are duplicates within the COPY, and a
//     probe walking the table's committed keys in the same order finds the
//     rows that already exist. A large statement writes its rows to
//     sstables in the same walk (bulk.go). If all is well the chunks are
//     read back, in order, and sent into the source as one statement.
//
// Memory is bounded by the two buffers and the read buffers of the merge,
// whatever the size of the COPY; the files live in a temporary directory
// removed when the statement ends. The table's actor writes no rows of a
// large statement (it attaches the sstables to the epoch: bulk.go); the
// actors of views over the table still stage the views' changes in
// memory until the barrier.
//
// Sorting the keys, rather than a hash set, is what makes the duplicate
// check bounded: equal keys meet in the merge wherever they were in the
// input, and the probe of existing keys becomes a forward walk.

// Staging limits; variables so tests can force spilling.
var (
	// copyMemBytes is how many bytes of staged chunks stay in memory
	// before the rest of the COPY goes to a temporary file.
	copyMemBytes = 8 << 20
	// copyKeyRunBytes is the size of a sorted run of keys.
	copyKeyRunBytes = 16 << 20
)

// spillBufferSize is the buffer of each temporary file a COPY writes or
// reads.
const spillBufferSize = 256 << 10

// copyStage holds the rows of one COPY FROM between parsing and commit.
type copyStage struct {
	types []types.Type
	b     *chunk.Builder
	dir   *tempDir
	held  chunkStage
	keys  *keySorter // the rows' keys and values (see bulk.go)
	rows  int64

	// A stage of rows appended straight into b (appended; see
	// copy_columns.go) encodes their keys and values from each chunk
	// once it is built, with layout (nil for a stage of rows added with
	// add), on its writer goroutine, pipe (copy_pipe.go); lines are the
	// lines of b's rows. key and val are the writer's.
	layout   *storage.Table
	lines    []int64
	pipe     *stagePipe
	key, val []byte
}

func newCopyStage(ts []types.Type) *copyStage {
	s := &copyStage{types: ts, b: chunk.NewBuilder(ts), dir: &tempDir{}}
	s.held = chunkStage{types: ts, dir: s.dir}
	s.keys = newKeySorter(s.dir)
	return s
}

// add stages a row with its storage key and encoded value.
func (s *copyStage) add(row []types.Datum, key, value []byte, line int64) error {
	s.b.Append(chunk.Insert, row)
	s.rows++
	if err := s.keys.add(key, value, line); err != nil {
		return err
	}
	if s.b.Len() >= dmlChunkRows {
		return s.flushChunk()
	}
	return nil
}

// appended records a row appended through s.b.Columns(), read from
// line (s.layout is set).
func (s *copyStage) appended(line int64) error {
	s.b.AppendedRow(chunk.Insert)
	s.lines = append(s.lines, line)
	s.rows++
	if s.b.Len() >= dmlChunkRows {
		return s.flushChunk()
	}
	return nil
}

func (s *copyStage) flushChunk() error {
	if s.b.Len() == 0 {
		return nil
	}
	c := s.b.Build()
	if s.layout != nil {
		lines := s.lines
		s.lines = make([]int64, 0, cap(lines))
		return s.send(c, lines)
	}
	return s.held.put(c)
}

// settle stages the rows appended so far and waits until the writer has
// staged them all: the keys and staged chunks are then the caller's.
func (s *copyStage) settle() error {
	if err := s.flushChunk(); err != nil {
		return err
	}
	return s.joinPipe()
}

// addKeys adds the key and value of each row of c, appended rows, to the
// keys, with their lines.
func (s *copyStage) addKeys(c *chunk.Chunk, lines []int64) error {
	var err error
	for i, line := range lines {
		if s.key, err = s.layout.AppendRowKeyAt(s.key[:0], c, i); err != nil {
			return err
		}
		if s.val, err = s.layout.AppendRowAt(s.val[:0], c, i); err != nil {
			return err
		}
		if err := s.keys.add(s.key, s.val, line); err != nil {
			return err
		}
	}
	return nil
}

// finish ends staging: the last chunk is built and the keys sorted.
func (s *copyStage) finish() error {
	if err := s.settle(); err != nil {
		return err
	}
	if err := s.held.finish(); err != nil {
		return err
	}
	return s.keys.finish()
}

// chunks returns the staged chunks in order, each handed over to the
// caller (who releases it); nil at the end.
func (s *copyStage) chunks() func() (*chunk.Chunk, error) { return s.held.chunks() }

// close releases what the stage holds and removes its files.
func (s *copyStage) close() {
	s.abortPipe()
	s.keys.close()
	s.b.Release()
	s.held.close()
	s.dir.remove()
}

// chunkStage holds a statement's chunks in order: in memory up to
// copyMemBytes, the rest in a temporary file of dir (with their change
// operations when ops is set; else they come back as inserts).
type chunkStage struct {
	types    []types.Type
	ops      bool
	dir      *tempDir
	mem      []*chunk.Chunk // the first chunks, in memory
	memBytes int
	spill    *chunkSpill // the chunks after them, on disk; nil until needed
}

// put stages c, which it takes over.
func (s *chunkStage) put(c *chunk.Chunk) error {
	if s.spill == nil && s.memBytes < copyMemBytes {
		s.mem = append(s.mem, c)
		s.memBytes += chunkBytes(c)
		return nil
	}
	defer c.Release()
	if s.spill == nil {
		f, err := s.dir.create("rows")
		if err != nil {
			return err
		}
		s.spill = newChunkSpill(f, s.types, s.ops)
	}
	return s.spill.write(c)
}

// finish ends staging; chunks may then be read.
func (s *chunkStage) finish() error {
	if s.spill != nil {
		return s.spill.finish()
	}
	return nil
}

// chunks returns the staged chunks in order, each handed over to the
// caller (who releases it); nil at the end.
func (s *chunkStage) chunks() func() (*chunk.Chunk, error) {
	return func() (*chunk.Chunk, error) {
		if len(s.mem) > 0 {
			c := s.mem[0]
			s.mem[0], s.mem = nil, s.mem[1:]
			return c, nil
		}
		if s.spill == nil {
			return nil, nil
		}
		return s.spill.next()
	}
}

// close releases the chunks still held (not the directory: its owner
// removes it).
func (s *chunkStage) close() {
	for _, c := range s.mem {
		c.Release()
	}
	s.mem = nil
	if s.spill != nil {
		s.spill.close()
	}
}

// chunkBytes estimates the memory of a chunk's buffers.
func chunkBytes(c *chunk.Chunk) int {
	n := len(c.Ops)
	for _, col := range c.Rec.Columns() {
		for _, b := range col.Data().Buffers() {
			if b != nil {
				n += b.Len()
			}
		}
	}
	return n
}

// chunkSpill writes chunks to a file in Arrow IPC stream format and reads
// them back in order. With ops, each row's change operation is kept too
// (in an extra column); without, chunks come back as inserts.
type chunkSpill struct {
	f      *os.File
	types  []types.Type
	schema *arrow.Schema // of the file: the columns, then the ops
	ops    bool
	bw     *bufio.Writer
	w      *ipc.Writer
	r      *ipc.Reader
}

func newChunkSpill(f *os.File, ts []types.Type, ops bool) *chunkSpill {
	bw := bufio.NewWriterSize(f, spillBufferSize)
	schema := chunk.Schema(ts)
	if ops {
		schema = arrow.NewSchema(append(schema.Fields(), arrow.Field{Name: "op", Type: arrow.PrimitiveTypes.Uint8}), nil)
	}
	return &chunkSpill{f: f, types: ts, schema: schema, ops: ops, bw: bw,
		w: ipc.NewWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))}
}

func (s *chunkSpill) write(c *chunk.Chunk) error {
	rec := c.Rec
	if s.ops {
		n := len(c.Ops)
		b := make([]byte, n)
		for i, op := range c.Ops {
			b[i] = byte(op)
		}
		ops := array.NewUint8Data(array.NewData(arrow.PrimitiveTypes.Uint8, n,
			[]*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0))
		defer ops.Release()
		rec = array.NewRecordBatch(s.schema, append(slices.Clone(c.Rec.Columns()), ops), int64(n))
		defer rec.Release()
	}
	if err := s.w.Write(rec); err != nil {
		return fmt.Errorf("streamdb: COPY: writing staged rows: %w", err)
	}
	return nil
}

// finish flushes the file and opens it for reading.
func (s *chunkSpill) finish() error {
	if err := s.w.Close(); err != nil {
		return fmt.Errorf("streamdb: COPY: writing staged rows: %w", err)
	}
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("streamdb: COPY: writing staged rows: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r, err := ipc.NewReader(bufio.NewReaderSize(s.f, spillBufferSize), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return fmt.Errorf("streamdb: COPY: reading staged rows: %w", err)
	}
	s.r = r
	return nil
}

// next returns the next chunk, owned by the caller; nil at the end.
func (s *chunkSpill) next() (*chunk.Chunk, error) {
	if !s.r.Next() {
		if err := s.r.Err(); err != nil {
			return nil, fmt.Errorf("streamdb: COPY: reading staged rows: %w", err)
		}
		return nil, nil
	}
	rec := s.r.RecordBatch()
	ops := make([]chunk.Op, rec.NumRows())
	if !s.ops {
		rec.Retain()
		return &chunk.Chunk{Rec: rec, Ops: ops, Types: s.types}, nil
	}
	n := len(s.types)
	for i, op := range rec.Column(n).(*array.Uint8).Uint8Values() {
		ops[i] = chunk.Op(op)
	}
	data := array.NewRecordBatch(chunk.Schema(s.types), rec.Columns()[:n], rec.NumRows())
	return &chunk.Chunk{Rec: data, Ops: ops, Types: s.types}, nil
}

func (s *chunkSpill) close() {
	if s.r != nil {
		s.r.Release()
	}
}

// tempDir is a temporary directory made on first use and removed whole.
type tempDir struct {
	path  string
	files []*os.File
}

func (d *tempDir) create(name string) (*os.File, error) {
	if d.path == "" {
		p, err := os.MkdirTemp("", "streamdb-copy-")
		if err != nil {
			return nil, fmt.Errorf("streamdb: COPY: making a temporary directory: %w", err)
		}
		d.path = p
	}
	f, err := os.CreateTemp(d.path, name+"-")
	if err != nil {
		return nil, fmt.Errorf("streamdb: COPY: making a temporary file: %w", err)
	}
	d.files = append(d.files, f)
	return f, nil
}

func (d *tempDir) remove() {
	for _, f := range d.files {
		f.Close()
	}
	d.files = nil
	if d.path != "" {
		os.RemoveAll(d.path)
		d.path = ""
	}
}

// checkEvery is how many rows a long loop handles between checks of its
// context.
const checkEvery = 4096

func ctxEvery(ctx context.Context, i int64) error {
	if i%checkEvery == 0 {
		return ctx.Err()
	}
	return nil
}
