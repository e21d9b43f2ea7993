package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/sql"
)

// System parameters are the database's own settings, as opposed to a
// session's: ALTER SYSTEM SET changes one for every session at once and
// keeps it in the store, so it holds across restarts (RisingWave's
// ALTER SYSTEM and SHOW PARAMETERS; PostgreSQL's ALTER SYSTEM). A value
// set there wins over the Options the DB is opened with, which give the
// default of a data dir that has none.
//
// Each is stored as its canonical text under metaSysParamPrefix+name.

const metaSysParamPrefix = "sysparam/"

// sysParam describes one system parameter.
type sysParam struct {
	name string
	doc  string
	// parse validates a value as written and returns its canonical text.
	parse func(v string) (string, error)
	// get returns the value in effect; apply makes a canonical value take
	// effect (at once, for every session); def is the value of RESET.
	get   func(db *DB) string
	apply func(db *DB, v string)
	def   func(db *DB) string
}

// Barrier intervals outside this range are refused: under 10 ms the
// barriers' own cost (a commit each) would crowd out work, and over an
// hour nothing would be visible for too long.
const (
	minBarrierInterval = 10 * time.Millisecond
	maxBarrierInterval = time.Hour
)

var sysParams = []sysParam{{
	name: "barrier_interval_ms",
	doc:  "how often, in milliseconds, a barrier commits the running graph's changes when nothing asks for one sooner",
	parse: func(v string) (string, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"barrier_interval_ms\": %q", v)
			e.Hint = "A whole number of milliseconds is required."
			return "", e
		}
		if d := time.Duration(n) * time.Millisecond; n < 0 || d < minBarrierInterval || d > maxBarrierInterval {
			return "", pgerr.New(pgerr.InvalidParameterValue,
				"%d is outside the valid range for parameter \"barrier_interval_ms\" (%d .. %d)",
				n, minBarrierInterval.Milliseconds(), maxBarrierInterval.Milliseconds())
		}
		return strconv.FormatInt(n, 10), nil
	},
	get: func(db *DB) string { return strconv.FormatInt(db.coord.BarrierInterval().Milliseconds(), 10) },
	apply: func(db *DB, v string) {
		n, _ := strconv.ParseInt(v, 10, 64) // canonical: parsed before
		db.coord.SetBarrierInterval(time.Duration(n) * time.Millisecond)
	},
	def: func(db *DB) string { return strconv.FormatInt(db.opts.BarrierInterval.Milliseconds(), 10) },
}}

func lookupSysParam(name string) (*sysParam, bool) {
	for i := range sysParams {
		if sysParams[i].name == name {
			return &sysParams[i], true
		}
	}
	return nil, false
}

// loadSysParams reads the stored system parameters at Open, before the
// coordinator exists, into the options it starts with. A stored value
// that no longer parses (a newer range) is ignored with a warning.
func (db *DB) loadSysParams() error {
	keys, vals, err := db.store.ScanMeta(metaSysParamPrefix)
	if err != nil {
		return err
	}
	for i, k := range keys {
		name := strings.TrimPrefix(k, metaSysParamPrefix)
		p, ok := lookupSysParam(name)
		if !ok {
			continue // written by a newer version: kept, not used
		}
		v, err := p.parse(string(vals[i]))
		if err != nil {
			db.opts.Logger.Warn("ignoring a stored system parameter", "name", name, "value", string(vals[i]), "err", err)
			continue
		}
		switch name {
		case "barrier_interval_ms":
			n, _ := strconv.ParseInt(v, 10, 64)
			db.opts.BarrierInterval = time.Duration(n) * time.Millisecond
		}
	}
	return nil
}

// alterSystem runs ALTER SYSTEM SET/RESET: validates the value, stores
// it durably, then applies it. RESET removes the stored value, so the
// Options' default applies again (now and after a restart).
func (db *DB) alterSystem(_ context.Context, n *sql.AlterSystemStmt, w ResultWriter) error {
	p, ok := lookupSysParam(n.Name)
	if !ok {
		e := pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", n.Name)
		e.Hint = "SHOW PARAMETERS lists the parameters ALTER SYSTEM sets; SET changes a session's own."
		return e
	}
	db.ddlMu.Lock()
	defer db.ddlMu.Unlock()
	key := metaSysParamPrefix + p.name
	if n.Default {
		if err := db.store.DeleteMeta(key); err != nil {
			return err
		}
		p.apply(db, p.def(db))
		return w.Complete("ALTER SYSTEM")
	}
	v, err := p.parse(n.Value)
	if err != nil {
		return err
	}
	if err := db.store.PutMeta(key, []byte(v)); err != nil {
		return err
	}
	p.apply(db, v)
	db.opts.Logger.Info("system parameter set", "name", p.name, "value", v)
	return w.Complete("ALTER SYSTEM")
}

var sysParamColumns = []Column{{Name: "Name", Type: types.TText}, {Name: "Value", Type: types.TText},
	{Name: "Editable", Type: types.TBool}, {Name: "Description", Type: types.TText}}

// showParameters is SHOW PARAMETERS: every system parameter, its value
// in effect, and what it means.
func (db *DB) showParameters(w ResultWriter) error {
	if err := w.Columns(sysParamColumns); err != nil {
		return err
	}
	for i := range sysParams {
		p := &sysParams[i]
		if err := w.Row([]types.Datum{p.name, p.get(db), true, p.doc}); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("SHOW %d", len(sysParams)))
}

// showSysParam answers SHOW name for a system parameter (ok false when
// name is none).
func (db *DB) showSysParam(name string, w ResultWriter) (bool, error) {
	p, ok := lookupSysParam(name)
	if !ok {
		return false, nil
	}
	if err := w.Columns([]Column{{Name: p.name, Type: types.TText}}); err != nil {
		return true, err
	}
	if err := w.Row([]types.Datum{p.get(db)}); err != nil {
		return true, err
	}
	return true, w.Complete("SHOW")
}
