package systemcatalog

import (
	"fmt"

	"github.com/streamdb/streamdb/internal/types"
)

// pg_aggregate: a row for each aggregate pg_proc lists, with PostgreSQL
// 15's values (pg_aggregate_data.go). The support functions it names
// (transition, final, combine ...) are PostgreSQL's, by OID; pg_proc does
// not list them, as streamdb cannot call them by name, but regproc reads
// and prints their names. The sort operators are pg_operator's.
// TestPgAggregatePostgres compares the rows with PostgreSQL's.

var pgAggregate = newTable(nsPgCatalog, "pg_aggregate", 2600, "r", aggregateRows, `aggfnoid regproc, aggkind "char", aggnumdirectargs smallint, aggtransfn regproc, aggfinalfn regproc, aggcombinefn regproc, aggserialfn regproc, aggdeserialfn regproc, aggmtransfn regproc, aggminvtransfn regproc, aggmfinalfn regproc, aggfinalextra boolean, aggmfinalextra boolean, aggfinalmodify "char", aggmfinalmodify "char", aggsortop oid, aggtranstype oid, aggtransspace integer, aggmtranstype oid, aggmtransspace integer, agginitval text, aggminitval text`)

// builtinAggregate is a pg_aggregate row. Functions are named as regproc
// prints them, "" for none; types as format_type prints them, "" for
// none. Zero values stand for PostgreSQL's defaults.
type builtinAggregate struct {
	fn                          int64 // aggfnoid: the aggregate's pg_proc OID
	kind                        byte  // aggkind: 0 for 'n' (normal)
	directArgs                  int64 // aggnumdirectargs
	transfn, finalfn, combinefn string
	serialfn, deserialfn        string
	mtransfn, minvtransfn       string
	mfinalfn                    string
	finalExtra, mfinalExtra     bool
	finalModify, mfinalModify   byte  // aggfinalmodify, aggmfinalmodify: 0 for 'r'
	sortop                      int64 // aggsortop: a pg_operator OID, 0 for none
	transtype, mtranstype       string
	transspace, mtransspace     int64
	initval, minitval           string // agginitval, aggminitval: "" for NULL
}

// initAggregates checks the aggregates against pg_proc, pg_operator and
// pg_type, and lets regproc name their support functions; pg_proc.go's
// init calls it once pg_proc and pg_operator are indexed.
func initAggregates() {
	ops := map[int64]bool{}
	for _, o := range pgOperators {
		ops[o.oid] = true
	}
	for name, oid := range aggSupportFuncs {
		addSupportFunc(oid, name)
	}
	for _, a := range pgAggregates {
		what := fmt.Sprintf("pg_aggregate %d", a.fn)
		if f, ok := pgFuncsByOID[a.fn]; !ok || f.kind != 'a' {
			panic(fmt.Sprintf("streamdb: %s is not an aggregate in pg_proc", what))
		}
		for _, fn := range a.funcs() {
			if _, ok := aggSupportFuncs[fn]; fn != "" && !ok {
				panic(fmt.Sprintf("streamdb: %s: support function %q has no OID", what, fn))
			}
		}
		if a.sortop != 0 && !ops[a.sortop] {
			panic(fmt.Sprintf("streamdb: %s: sort operator %d is not in pg_operator", what, a.sortop))
		}
		mustTypeOID(a.transtype, what)
		mustTypeOID(a.mtranstype, what)
	}
}

// funcs are the support functions of a, in pg_aggregate's order.
func (a *builtinAggregate) funcs() []string {
	return []string{a.transfn, a.finalfn, a.combinefn, a.serialfn, a.deserialfn, a.mtransfn, a.minvtransfn, a.mfinalfn}
}

func orNull(s string) types.Datum {
	if s == "" {
		return nil
	}
	return s
}

func aggregateRows(*view) [][]types.Datum {
	rows := make([][]types.Datum, 0, len(pgAggregates))
	for i := range pgAggregates {
		a := &pgAggregates[i]
		row := []types.Datum{a.fn, orDefault(a.kind, 'n'), a.directArgs}
		for _, fn := range a.funcs() {
			row = append(row, aggSupportFuncs[fn]) // 0 for ""
		}
		row = append(row, a.finalExtra, a.mfinalExtra, orDefault(a.finalModify, 'r'), orDefault(a.mfinalModify, 'r'),
			a.sortop, mustTypeOID(a.transtype, "pg_aggregate"), a.transspace,
			mustTypeOID(a.mtranstype, "pg_aggregate"), a.mtransspace, orNull(a.initval), orNull(a.minitval))
		rows = append(rows, row)
	}
	return rows
}
