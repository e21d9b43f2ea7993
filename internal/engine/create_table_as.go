package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/expr"
	"github.com/streamdb/streamdb/planner"
)

// createTableAs runs CREATE TABLE ... AS query and SELECT ... INTO: it
// creates the table, then fills it with the query's rows by one INSERT
// (the bulk path of INSERT ... SELECT), which commits them all or none.
// If the fill fails, the table is dropped again: the statement leaves
// either the filled table or nothing. Between the two steps the empty
// table is visible to other sessions.
func (db *DB) createTableAs(ctx context.Context, cta *planner.CreateTableAs, opts tableOptions, w ResultWriter) error {
	cw := &tagWriter{ResultWriter: w}
	if err := db.createTable(ctx, cta.Table, opts, cw); err != nil || cw.tag == "" {
		if err == nil { // IF NOT EXISTS, and it does
			return w.Complete("CREATE TABLE AS")
		}
		return err
	}
	if cta.NoData {
		return w.Complete("CREATE TABLE AS")
	}
	rel, ok := db.Relation(cta.Table.Name)
	if !ok {
		return fmt.Errorf("streamdb: table %q vanished after CREATE TABLE AS created it", cta.Table.Name)
	}
	ins := &planner.Insert{Rel: rel, Source: fillRows(rel, cta.Query.Plan)}
	defer db.coord.Live()()
	start := time.Now()
	n, err := db.writer.Insert(ctx, ins, nil)
	db.metrics.wrote(writeInsert, start, n, err)
	if err != nil {
		d := &planner.Drop{Kind: catalog.KindTable, Names: []string{rel.Name}, IfExists: true}
		if derr := db.drop(context.Background(), d, discardWriter{}); derr != nil {
			db.opts.Logger.Error("dropping table after a failed CREATE TABLE AS", "table", rel.Name, "err", derr)
		}
		return err
	}
	return w.Complete(fmt.Sprintf("SELECT %d", n))
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
