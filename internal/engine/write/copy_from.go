package write

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// copyBeforeSend, when set (by tests), is called when a COPY has checked
// its rows and is about to send them.
var copyBeforeSend func(*copyStage)

// copyLoad is one COPY FROM: it parses rows as the data arrives, checks
// and stages them, and commits them all at once (see copy_stage.go).
type copyLoad struct {
	w       *Writer
	rel     *catalog.Relation
	layout  *storage.Table
	targets []int    // the table column of each input field
	names   []string // the input columns' names
	binary  bool
	rd      pgcopy.Reader
	dec     *pgcopy.Decoder
	stage   *copyStage
	// row is the row being read, by table column: a Datum (nil: NULL),
	// or, where unboxed is set, the integer in ints (copy_columns.go).
	row     []types.Datum
	unboxed []bool
	ints    []int64
	// defaults are the left-out columns' defaults (nil: NULL).
	defaults []expr.Expr
	// rules are the table's generated columns and CHECK constraints;
	// uniq checks its UNIQUE constraints.
	rules *planner.RowRules
	uniq  *uniqueChecker

	// The insert batches PostgreSQL would have (copyBatchRows): the rows
	// and bytes of the current one, and the last line of the last full
	// one (0 when none is).
	batchRows, batchBytes int
	insertedLine          int64
}

// PostgreSQL's COPY FROM inserts rows in batches (MAX_BUFFERED_TUPLES and
// MAX_BUFFERED_BYTES of input line text in copyfrom.c), so a duplicate
// key fails it when its batch is full and inserted, before the rows after
// the batch are read: of a duplicate key and a later bad row, it reports
// the duplicate only when a full batch lies between them.
const (
	copyBatchRows  = 1000
	copyBatchBytes = 65535
)

// CopyFrom loads the COPY data in r, in the format of opts, into the
// target columns of table rel (the others get defaults[i], evaluated per
// row, or NULL where it is nil) and returns the number of rows loaded:
// all of them, or none and an error.
// rules, when not nil, are the table's generated columns and CHECK
// constraints.
func (w *Writer) CopyFrom(ctx context.Context, rel *catalog.Relation, targets []int, defaults []expr.Expr, rules *planner.RowRules, opts pgcopy.Options, r io.Reader) (int64, error) {
	names := make([]string, len(targets))
	ts := make([]types.Type, len(targets))
	for i, c := range targets {
		names[i], ts[i] = rel.Columns[c].Name, rel.Columns[c].Type
	}
	l := &copyLoad{w: w, rel: rel, layout: planner.TableLayout(rel), targets: targets, names: names,
		binary: opts.Format == pgcopy.Binary, rd: pgcopy.NewReader(r, opts, names),
		dec: pgcopy.NewDecoder(opts.Format, ts).InZone(opts.Zone), stage: newCopyStage(rel.ColumnTypes()),
		row: make([]types.Datum, len(rel.Columns)), unboxed: make([]bool, len(rel.Columns)),
		ints: make([]int64, len(rel.Columns)), defaults: defaults, rules: rules}
	l.stage.layout = l.layout
	defer l.stage.close()
	var err error
	if l.uniq, err = newUniqueChecker(w.e, rel); err != nil {
		return 0, err
	}
	defer l.uniq.close()
	if err := l.read(ctx); err != nil {
		return 0, l.earlierDuplicate(ctx, err)
	}
	if err := l.stage.finish(); err != nil {
		return 0, err
	}
	return l.stage.rows, l.commit(ctx)
}

// read stages every row of the data.
func (l *copyLoad) read(ctx context.Context) error {
	for i := int64(1); ; i++ {
		if err := ctxEvery(ctx, i); err != nil {
			return pgerr.As(err)
		}
		fields, err := l.rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return l.withContext(err, "", nil)
		}
		if err := l.fill(fields); err != nil {
			return err
		}
		l.appendRow()
		if err := l.stage.appended(l.rd.Line()); err != nil {
			return err
		}
		l.batch()
	}
}

// batch counts the row just staged into the current insert batch.
func (l *copyLoad) batch() {
	l.batchRows++
	l.batchBytes += l.rd.LineBytes()
	if l.batchRows >= copyBatchRows || l.batchBytes >= copyBatchBytes {
		l.insertedLine, l.batchRows, l.batchBytes = l.rd.Line(), 0, 0
	}
}

// earlierDuplicate returns, for a row that failed with err, the unique
// violation of a row in a full insert batch before it (see
// copyBatchRows), if there is one, else err.
func (l *copyLoad) earlierDuplicate(ctx context.Context, err error) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code == pgerr.QueryCanceled || l.rel.RowID || l.insertedLine == 0 {
		return err
	}
	// The rows of the chunk being built have no keys yet.
	if l.stage.settle() != nil || l.stage.keys.finish() != nil {
		return err
	}
	t, lockErr := l.w.lockTable(l.rel)
	if lockErr != nil {
		return err
	}
	defer t.unlock()
	if dup := l.checkKeys(ctx, t, l.insertedLine); dup != nil && pgerr.As(dup).Code == pgerr.UniqueViolation {
		return dup
	}
	return err
}

func (l *copyLoad) checkNotNull() error {
	for i, c := range l.rel.Columns {
		if l.row[i] == nil && !l.unboxed[i] && c.NotNull {
			e := pgerr.New(pgerr.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, l.rel.Name)
			e.Detail = "Failing row contains (" + l.rowText() + ")."
			return l.withContext(e, "", nil)
		}
	}
	return nil
}

// rowText renders the visible columns of l.row as PostgreSQL does in a
// "Failing row contains" detail.
func (l *copyLoad) rowText() string {
	var b strings.Builder
	for n, i := range l.rel.VisibleColumns() {
		if n > 0 {
			b.WriteString(", ")
		}
		switch {
		case l.unboxed[i]:
			b.WriteString(strconv.FormatInt(l.ints[i], 10))
		case l.row[i] == nil:
			b.WriteString("null")
		default:
			b.WriteString(types.Format(l.row[i], l.rel.Columns[i].Type))
		}
	}
	return b.String()
}

// withContext gives err the CONTEXT PostgreSQL gives errors of COPY FROM:
// the line, and the column and its value when one is at fault.
func (l *copyLoad) withContext(err error, col string, val []byte) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return err // an I/O error: no SQL context
	}
	e := *pe
	e.Where = copyWhere(l.rel.Name, l.rd.Line(), l.rd.LineText(), col, val, l.binary)
	return &e
}

func copyWhere(table string, line int64, lineText, col string, val []byte, binary bool) string {
	w := fmt.Sprintf("COPY %s, line %d", table, line)
	switch {
	case col != "" && !binary:
		return fmt.Sprintf(`%s, column %s: "%s"`, w, col, pgcopy.Shorten(string(val)))
	case col != "":
		return w + ", column " + col
	case lineText != "" || (!binary && line > 0):
		return fmt.Sprintf(`%s: "%s"`, w, lineText)
	}
	return w
}

// commit checks the staged keys against each other and the table and
// sends the staged rows into the table, under its DML lock (bulk.go).
func (l *copyLoad) commit(ctx context.Context) error {
	if l.stage.rows == 0 {
		return nil
	}
	t, err := l.w.lockTable(l.rel)
	if err != nil {
		return err
	}
	defer t.unlock()
	if !sameUniques(l.rel, t.cur) {
		// Its rows' keys were kept for the constraints it started with.
		e := pgerr.New(pgerr.SerializationFailure, "table %q was altered while the statement waited for it", l.rel.Name)
		e.Hint = "Run the statement again."
		return e
	}
	if l.uniq != nil {
		if err := l.uniq.probe(t.snap, t.layout); err != nil {
			return err
		}
	}
	var before func()
	if copyBeforeSend != nil {
		before = func() { copyBeforeSend(l.stage) }
	}
	dup := func(row []byte, line int64) error { return l.duplicate(t, row, line) }
	return t.commitStaged(ctx, l.stage, !l.rel.RowID, dup, before)
}

// checkKeys finds the first line up to lastLine (as PostgreSQL would,
// inserting in order) whose key repeats an earlier line's or a committed
// row's.
func (l *copyLoad) checkKeys(ctx context.Context, t *dmlTarget, lastLine int64) error {
	badRow, badLine, err := t.checkStaged(ctx, l.stage.keys, lastLine, true, nil)
	if err != nil {
		return err
	}
	if badLine >= 0 {
		return l.duplicate(t, badRow, badLine)
	}
	return nil
}

// duplicate is the unique violation of the row on line, encoded as row.
func (l *copyLoad) duplicate(t *dmlTarget, row []byte, line int64) error {
	e := pgerr.As(t.rowDuplicate(row))
	e.Where = fmt.Sprintf("COPY %s, line %d", l.rel.Name, line)
	return e
}
