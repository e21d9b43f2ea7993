package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/internal/failpoint"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/planner"
)

// createTableAs runs CREATE TABLE ... AS query and SELECT ... INTO. The
// table appears with its rows or not at all, to other sessions and
// across a crash: it is created marked Filling (durably, in its catalog
// entry), which hides it from every lookup by name; one INSERT (the bulk
// path of INSERT ... SELECT) commits all its rows in one epoch; then one
// catalog write clears the mark and publishes it. A fill that fails
// drops the table again, and a table a crash left Filling is dropped at
// Open (dropLeftovers), its rows with it.
func (db *DB) createTableAs(ctx context.Context, cta *planner.CreateTableAs, opts tableOptions, w ResultWriter) error {
	cw := &tagWriter{ResultWriter: w}
	opts.filling = true
	if err := db.createTable(ctx, cta.Table, opts, cw); err != nil || cw.tag == "" {
		if err == nil { // IF NOT EXISTS, and it does
			return w.Complete("CREATE TABLE AS")
		}
		return err
	}
	rel, ok := db.Relation(cta.Table.Name)
	if !ok {
		return fmt.Errorf("streamdb: table %q vanished after CREATE TABLE AS created it", cta.Table.Name)
	}
	var n int64
	if !cta.NoData {
		ins := &planner.Insert{Rel: rel, Source: fillRows(rel, cta.Query.Plan)}
		done := db.coord.Live()
		start := time.Now()
		var err error
		n, err = db.writer.Insert(ctx, ins, nil)
		db.metrics.wrote(writeInsert, start, n, err)
		done()
		if err == nil && failpoint.Enabled {
			err = failpoint.Hit(failpoint.CreateTableAsFilled)
		}
		if err != nil {
			db.dropUnfilled(rel)
			return err
		}
	}
	if err := db.publishFilled(rel); err != nil {
		db.dropUnfilled(rel)
		return err
	}
	if cta.NoData {
		return w.Complete("CREATE TABLE AS")
	}
	return w.Complete(fmt.Sprintf("SELECT %d", n))
}

// publishFilled clears the Filling mark of a table CREATE TABLE AS has
// filled, in one durable catalog write: from then on it is seen.
func (db *DB) publishFilled(rel *catalog.Relation) error {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "table %q was dropped while CREATE TABLE AS filled it", rel.Name)
	}
	next := *cur
	next.Filling = false
	if err := db.saveRelation(&next); err != nil {
		return err
	}
	db.replaceRelation(&next)
	return nil
}

// dropUnfilled drops a table CREATE TABLE AS could not fill.
func (db *DB) dropUnfilled(rel *catalog.Relation) {
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	cur, ok := db.RelationByID(rel.ID)
	if !ok {
		return
	}
	if err := db.dropRelation(context.Background(), cur, true, discardWriter{}); err != nil {
		db.opts.Logger.Error("dropping table after a failed CREATE TABLE AS", "table", rel.Name, "err", err)
	}
}

// fillRows projects the rows of plan (one column per visible column of
// rel, in order) onto rel's columns, its hidden row id NULL (the insert
// fills it).
func fillRows(rel *catalog.Relation, plan planner.Node) planner.Node {
	p := &planner.Project{Input: plan}
	k := 0
	in := plan.Columns()
	for _, c := range rel.Columns {
		if c.Hidden {
			p.Exprs = append(p.Exprs, expr.NewConst(nil, c.Type))
		} else {
			p.Exprs = append(p.Exprs, expr.NewColumn(k, in[k].Type, in[k].Name))
			k++
		}
		p.Cols = append(p.Cols, planner.Column{Name: c.Name, Type: c.Type, Hidden: c.Hidden})
	}
	return p
}

// tagWriter keeps the command tag of a statement instead of sending it.
type tagWriter struct {
	ResultWriter
	tag string
}

func (w *tagWriter) Complete(tag string) error {
	w.tag = tag
	return nil
}
