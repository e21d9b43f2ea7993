package stream

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/internal/chunk"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/storage"
)

// Materialize applies the changes of its input to a table, keyed by the
// table's PK, and passes every message on (it is also the upstream of the
// views built over the relation it maintains):
//
//   - Insert and UpdateInsert write the row (an upsert);
//   - Delete and UpdateDelete delete the row with the row's pk.
//
// With correct stream keys that is all, and chunks pass through untouched.
// Materialize also checks each change against the table and repairs what an
// inconsistent input would break downstream, re-building the chunk:
//
//   - an Insert (or an UpdateInsert not preceded by its UpdateDelete) whose
//     pk exists overwrites the row and is emitted as UpdateDelete(old) +
//     UpdateInsert(new);
//   - a Delete or UpdateDelete of a missing pk is dropped (and the
//     UpdateInsert that followed it becomes an Insert).
//
// Repairs are counted in Conflicts. Checked writes go to the epoch batch
// as rows arrive; unchecked ones (Trusted, ViewInput) are kept in a
// tableWrites and leave at the barrier (an epoch's many writes, such as a
// view's backfill, as an ingested sstable); nothing is pending after a
// barrier.
type Materialize struct {
	in    Executor
	sc    *StateContext
	table *storage.Table

	// Conflicts counts the input rows that contradicted the table (an
	// insert of an existing pk or a delete of a missing one).
	Conflicts int64
	// Trusted skips the checks: the input is known to be consistent with
	// the table (a table's DML, validated under its DML lock), so each
	// change is written without reading the table first.
	Trusted bool
	// ViewInput says the input is a view's stream, consistent with the
	// table by construction (exactly once, I3): the release build writes
	// it without reading the table first, like Trusted; under the
	// invariants build tag every change is checked and a contradiction
	// panics.
	ViewInput bool
	// KeyedDeletes says a Delete may carry its pk only, the other
	// columns NULL (the tombstones of a Kafka FORMAT UPSERT table): a
	// delete goes out as the row the table held, so the views over it
	// retract what they counted. Checked writes only.
	KeyedDeletes bool
	// Owned, when not nil, are the vnodes of the table this actor owns;
	// under the invariants build tag every row is checked against them.
	Owned *storage.VnodeBitmap

	b       *chunk.Builder
	row     []types.Datum
	pk      []types.Datum
	lastOut chunk.Op // op of the last row appended to b
	changed bool     // the current chunk was repaired
	demote  []int    // rows of b to turn from UpdateDelete into Delete
	cur     *chunk.Chunk
	curRow  int
	// staged holds the epoch's unchecked writes (see write).
	staged     *tableWrites
	enc        storage.RowEncoder
	wkey, wval []byte
}

// NewMaterialize returns an executor maintaining table from in.
func NewMaterialize(in Executor, sc *StateContext, table *storage.Table) *Materialize {
	return &Materialize{in: in, sc: sc, table: table, b: chunk.NewBuilder(in.Types()),
		pk: make([]types.Datum, len(table.PK))}
}

// Types implements Executor.
func (m *Materialize) Types() []types.Type { return m.in.Types() }

// Next implements Executor.
func (m *Materialize) Next(ctx context.Context) (Message, error) {
	for {
		msg, err := m.in.Next(ctx)
		if err != nil {
			return msg, err
		}
		if failpoint.Enabled {
			if err := hitMsg(failpoint.ExecMaterializeChunk, failpoint.ExecMaterializeBarrier, msg); err != nil {
				return Message{}, err
			}
		}
		if msg.Chunk == nil {
			if msg.Barrier != nil && m.staged != nil {
				if err := m.staged.flush(m.sc.Store, m.sc.Batch(), msg.Barrier.ofJob()); err != nil {
					return Message{}, fmt.Errorf("stream: materialize table %d: %w", m.table.ID, err)
				}
			}
			return msg, nil
		}
		if msg.Ingest != nil {
			return m.ingest(msg)
		}
		c, err := m.apply(msg.Chunk)
		if err != nil {
			msg.Chunk.Release()
			return Message{}, err
		}
		if c == msg.Chunk {
			return msg, nil
		}
		msg.Chunk.Release()
		if c.NumRows() > 0 {
			return Message{Chunk: c}, nil
		}
		c.Release()
	}
}

// apply writes c's changes to the table and returns the chunk to emit: c
// itself when it needed no repair, else a new chunk. Rows are copied into
// the builder only from the first repair on (replaying the rows before it).
func (m *Materialize) apply(c *chunk.Chunk) (*chunk.Chunk, error) {
	if m.Trusted || m.ViewInput && !invariants {
		return c, m.write(c)
	}
	m.cur, m.changed, m.lastOut = c, false, chunk.Insert
	for m.curRow = 0; m.curRow < c.NumRows(); m.curRow++ {
		op := c.Op(m.curRow)
		m.row = c.Row(m.curRow, m.row)
		if invariants {
			m.checkOwnedRow(m.row)
		}
		var err error
		if op.IsInsert() {
			err = m.upsert(op, m.row)
		} else {
			err = m.delete(op, m.row)
		}
		if err != nil {
			m.reset()
			return nil, fmt.Errorf("stream: materialize table %d: %w", m.table.ID, err)
		}
	}
	m.cur = nil
	if !m.changed {
		return c, nil
	}
	out := m.b.Build()
	for _, i := range m.demote {
		out.Ops[i] = chunk.Delete
	}
	m.demote = m.demote[:0]
	return out, nil
}

// ingest attaches the rows of a chunk a statement has already written
// (msg.Ingest) to the epoch, and passes the chunk on.
func (m *Materialize) ingest(msg Message) (Message, error) {
	if !m.Trusted {
		msg.Chunk.Release()
		return Message{}, fmt.Errorf("stream: materialize table %d: an ingest reached an untrusted materialization", m.table.ID)
	}
	if err := m.sc.Batch().AddIngest(msg.Ingest); err != nil {
		msg.Chunk.Release()
		return Message{}, fmt.Errorf("stream: materialize table %d: %w", m.table.ID, err)
	}
	return Message{Chunk: msg.Chunk}, nil
}

// write stages a trusted chunk's changes without checks, encoding the
// rows straight from the chunk's Arrow columns (storage.RowEncoder).
func (m *Materialize) write(c *chunk.Chunk) error {
	if m.staged == nil {
		m.staged = new(tableWrites)
	}
	if err := m.enc.Reset(m.table, c); err != nil {
		return fmt.Errorf("stream: materialize table %d: %w", m.table.ID, err)
	}
	defer m.enc.Clear()
	for i := 0; i < c.NumRows(); i++ {
		if invariants {
			m.row = c.Row(i, m.row)
			m.checkOwnedRow(m.row)
		}
		if err := m.stage(c, i); err != nil {
			return fmt.Errorf("stream: materialize table %d: %w", m.table.ID, err)
		}
	}
	return nil
}

// stage stages the change of row i of c (m.enc is reset for c).
func (m *Materialize) stage(c *chunk.Chunk, i int) error {
	var err error
	if m.wkey, err = m.enc.AppendKey(m.wkey[:0], i); err != nil {
		return err
	}
	del := !c.Op(i).IsInsert()
	m.wval = m.wval[:0]
	if !del {
		if m.wval, err = m.enc.AppendValue(m.wval, i); err != nil {
			return err
		}
	}
	m.staged.put(m.wkey, m.wval, del)
	return nil
}

// reset drops a partly built repaired chunk.
func (m *Materialize) reset() {
	if m.changed {
		m.b.Build().Release()
	}
	m.demote = m.demote[:0]
}

// upsert writes an Insert or UpdateInsert row.
func (m *Materialize) upsert(op chunk.Op, row []types.Datum) error {
	old, exists, err := m.table.Get(m.sc.Batch(), m.pkOf(row))
	if err != nil {
		return err
	}
	switch {
	case exists:
		m.conflict()
		if m.lastOut == chunk.UpdateDelete {
			m.demoteLast()
		}
		m.emit(chunk.UpdateDelete, old)
		m.emit(chunk.UpdateInsert, row)
	case op == chunk.UpdateInsert && m.lastOut != chunk.UpdateDelete:
		m.repair()
		m.emit(chunk.Insert, row)
	default:
		m.emit(op, row)
	}
	return m.table.Insert(m.sc.Batch(), row)
}

// delete applies a Delete or UpdateDelete row.
func (m *Materialize) delete(op chunk.Op, row []types.Datum) error {
	old, exists, err := m.table.Get(m.sc.Batch(), m.pkOf(row))
	if err != nil {
		return err
	}
	if !exists {
		m.conflict()
		return nil
	}
	if m.KeyedDeletes {
		m.repair()
		row = old
	}
	m.emit(op, row)
	return m.table.Delete(m.sc.Batch(), row)
}

func (m *Materialize) pkOf(row []types.Datum) []types.Datum {
	for i, c := range m.table.PK {
		m.pk[i] = row[c]
	}
	return m.pk
}

// conflict counts an input row that contradicts the table and switches to
// building a repaired chunk.
func (m *Materialize) conflict() {
	if invariants && m.ViewInput {
		panic(fmt.Sprintf("invariant I3 violated: a change of view table %d contradicts it (row %v): some row or change arrived twice or not at all",
			m.table.ID, m.row))
	}
	m.Conflicts++
	m.repair()
}

// repair switches to building a repaired chunk: the rows before the
// current one, emitted unchanged so far, are copied into the builder.
func (m *Materialize) repair() {
	if m.changed {
		return
	}
	m.changed = true
	var row []types.Datum
	for i := 0; i < m.curRow; i++ {
		row = m.cur.Row(i, row)
		m.b.Append(m.cur.Op(i), row)
	}
}

// emit records that the current input row goes out with op (and row).
func (m *Materialize) emit(op chunk.Op, row []types.Datum) {
	if m.changed {
		m.b.Append(op, row)
	}
	m.lastOut = op
}

// demoteLast turns the UpdateDelete just appended into a Delete: its
// UpdateInsert is about to be emitted as part of another pair. The builder
// cannot change an op in place, so the ops are patched at Build time.
func (m *Materialize) demoteLast() {
	m.demote = append(m.demote, m.b.Len()-1)
}
