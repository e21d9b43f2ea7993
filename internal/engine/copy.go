package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgcopy"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/sql/binder"
)

// COPY, as PostgreSQL clients use it: COPY ... FROM STDIN loads the data
// the client streams (copy_from.go, staged as copy_stage.go explains) and
// COPY ... TO STDOUT streams a table or query out (copy_to.go), in the
// text, CSV and binary formats of package pgcopy. The data travels
// through the ResultWriter: pgwire's writers implement
// pgwire.CopyInWriter and pgwire.CopyOutWriter, and so do the writers of
// DB.CopyFrom and DB.CopyTo. The server reads and writes no files.

// copy runs a COPY statement.
func (s *Session) copy(ctx context.Context, n *sql.CopyStmt, w ResultWriter) error {
	if n.File != "" {
		return copyFileError(n)
	}
	if n.Where {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY FROM ... WHERE is not supported")
	}
	opts, err := pgcopy.ParseOptions(copyOptions(n.Options), n.From)
	if err != nil {
		return err
	}
	opts.Zone = s.zone
	if n.From {
		return s.copyFrom(ctx, n, opts, w)
	}
	return s.copyTo(ctx, n, opts, w)
}

func copyOptions(in []sql.CopyOption) []pgcopy.Option {
	out := make([]pgcopy.Option, len(in))
	for i, o := range in {
		out[i] = pgcopy.Option{Name: o.Name, Value: o.Value, HasValue: o.HasValue, Columns: o.Columns, Star: o.Star, Pos: o.Pos}
	}
	return out
}

// copyFileError refuses COPY to or from a server file or program.
func copyFileError(n *sql.CopyStmt) error {
	what, dir, hintDir := "a file", "from", "COPY ... FROM STDIN"
	if n.Program {
		what = "an external program"
	}
	if !n.From {
		dir, hintDir = "to", "COPY ... TO STDOUT"
	}
	e := pgerr.New(pgerr.FeatureNotSupported, "COPY %s %s is not supported: the server reads and writes no files", dir, what)
	e.Hint = fmt.Sprintf("Use %s, or psql's \\copy, which reads or writes the file on the client.", hintDir)
	return e
}

// copyRelation looks up the relation a COPY names.
func (s *Session) copyRelation(n *sql.CopyStmt) (*catalog.Relation, error) {
	c := s.catalog()
	r, ok := catalog.Lookup(c, c.SearchPath(), n.Schema, n.Table)
	if !ok {
		name := n.Table
		if n.Schema != "" {
			name = n.Schema + "." + n.Table
		}
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
	}
	return r, nil
}

// copyColumns returns the catalog indexes of the columns a COPY lists, or
// of every visible column.
// Generated columns are left out, as in PostgreSQL 15, and may not be
// listed.
func copyColumns(r *catalog.Relation, names []string) ([]int, error) {
	if names == nil {
		var out []int
		for _, i := range r.VisibleColumns() {
			if r.Columns[i].Generated == "" {
				out = append(out, i)
			}
		}
		return out, nil
	}
	out := make([]int, 0, len(names))
	for _, name := range names {
		i := visibleColumn(r, name)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", name, r.Name)
		}
		if r.Columns[i].Generated != "" {
			e := pgerr.New(pgerr.InvalidColumnReference, "column %q is a generated column", name)
			e.Detail = "Generated columns cannot be used in COPY."
			return nil, e
		}
		for _, j := range out {
			if j == i {
				return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", name)
			}
		}
		out = append(out, i)
	}
	return out, nil
}

func visibleColumn(r *catalog.Relation, name string) int {
	for i, c := range r.Columns {
		if c.Name == name && !c.Hidden {
			return i
		}
	}
	return -1
}

// copyFormat is the wire format code of a COPY format.
func copyFormat(f pgcopy.Format) int16 {
	if f == pgcopy.Binary {
		return 1
	}
	return 0
}

// copyFrom runs COPY ... FROM STDIN.
func (s *Session) copyFrom(ctx context.Context, n *sql.CopyStmt, opts pgcopy.Options, w ResultWriter) error {
	rel, err := s.copyRelation(n)
	if err != nil {
		return err
	}
	if rel.Kind != catalog.KindTable {
		return pgerr.New(pgerr.WrongObjectType, "cannot copy to %s %q", rel.Kind, rel.Name)
	}
	targets, err := copyColumns(rel, n.Columns)
	if err != nil {
		return err
	}
	cols := make([]Column, len(targets))
	names := make([]string, len(targets))
	for i, c := range targets {
		cols[i] = Column{Name: rel.Columns[c].Name, Type: rel.Columns[c].Type}
		names[i] = cols[i].Name
	}
	if err := checkForceColumns(opts, rel, names); err != nil {
		return err
	}
	cw, ok := w.(pgwire.CopyInWriter)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY FROM STDIN needs a client that sends copy data: use a PostgreSQL client or DB.CopyFrom")
	}
	in, err := cw.CopyIn(cols, copyFormat(opts.Format))
	if err != nil {
		return err
	}
	defaults, err := binder.ColumnDefaults(s.catalog(), rel, targets, s.instants())
	if err != nil {
		return err
	}
	rules, err := binder.RowRules(s.catalog(), rel)
	if err != nil {
		return err
	}
	start := time.Now()
	rows, err := s.db.writer.CopyFrom(ctx, rel, targets, defaults, rules, opts, in)
	s.db.metrics.wrote(writeCopy, start, rows, err)
	if err != nil {
		return err
	}
	if s.inTx {
		s.txWrites++
	}
	return w.Complete(fmt.Sprintf("COPY %d", rows))
}

// checkForceColumns checks that the FORCE_* options name COPY columns
// (and, for a COPY of a relation rel, columns of rel).
func checkForceColumns(opts pgcopy.Options, rel *catalog.Relation, names []string) error {
	for _, f := range []struct {
		name string
		list []string
	}{{"FORCE_QUOTE", opts.ForceQuote}, {"FORCE_NOT_NULL", opts.ForceNotNull}, {"FORCE_NULL", opts.ForceNull}} {
		for _, col := range f.list {
			if rel != nil && visibleColumn(rel, col) < 0 {
				return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", col, rel.Name)
			}
		}
		if _, err := pgcopy.ColumnFlags(f.name, f.list, false, names); err != nil {
			return err
		}
	}
	return nil
}
