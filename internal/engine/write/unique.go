package write

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

// UNIQUE constraints are checked per statement, under the table's DML
// lock, against the constraint's unique index as the statement's
// snapshot holds it (committed state: the index commits in the same
// epochs as the table, and no other statement writes the table until
// this one has committed) and against the statement's own rows. A row
// whose constraint columns are not all non-NULL is not checked (NULLs
// are distinct). The key values of the statement's rows are kept (add),
// and each is probed in the index (probe), ignoring the index entries of
// rows the statement itself removes or replaces (freed: an UPDATE's old
// rows), so an UPDATE is checked on the rows it leaves, whatever the
// order it changes them in.

// uniqueChecker checks a statement's rows against its table's UNIQUE
// constraints.
type uniqueChecker struct {
	rel  *catalog.Relation
	cons []*uniqueCons
	// freed holds the storage keys of the table rows the statement
	// removes or replaces.
	freed map[string]bool
	tmp   []types.Datum
}

// uniqueCons is one constraint's state.
type uniqueCons struct {
	u     catalog.Unique
	index *storage.Table
	pkAt  []int // the index row's column of each table pk column
	keyAt []int // the index row's column of each constraint column
	seen  map[string]bool
	keys  []string // in the order added, since the last probe
	buf   []byte
	vals  []types.Datum
	// probe reads the index in the statement's snapshot (made on first
	// use).
	probe *storage.PrefixProbe
}

// close releases the checker's probes.
func (c *uniqueChecker) close() {
	if c == nil {
		return
	}
	for _, uc := range c.cons {
		if uc.probe != nil {
			uc.probe.Close()
			uc.probe = nil
		}
	}
}

// newUniqueChecker returns the checker of rel's UNIQUE constraints (nil
// when it has none). A constraint whose index is not created yet makes
// the table refuse writes.
func newUniqueChecker(e Engine, rel *catalog.Relation) (*uniqueChecker, error) {
	if len(rel.Uniques) == 0 {
		return nil, nil
	}
	c := &uniqueChecker{rel: rel, freed: map[string]bool{}, tmp: make([]types.Datum, len(rel.Columns))}
	for _, u := range rel.Uniques {
		idx, ok := e.Relation(u.Index)
		if !ok || !idx.Readable() || idx.Index.Table != rel.ID {
			_, own := catalog.SplitName(u.Name)
			err := pgerr.New(pgerr.ObjectNotInPrereqState, "the index of unique constraint %q of table %q is not created", own, rel.Name)
			err.Hint = "A crash interrupted its CREATE TABLE: create the table again."
			return nil, err
		}
		uc := &uniqueCons{u: u, index: planner.TableLayout(idx), seen: map[string]bool{},
			vals: make([]types.Datum, len(u.Columns))}
		for _, pc := range rel.PK {
			uc.pkAt = append(uc.pkAt, idx.Index.StoredColumn(pc))
		}
		for _, col := range u.Columns {
			uc.keyAt = append(uc.keyAt, idx.Index.StoredColumn(col))
		}
		c.cons = append(c.cons, uc)
	}
	return c, nil
}

// free records that the statement removes or replaces the table row
// whose storage key is key (nothing on a nil checker: no constraints).
func (c *uniqueChecker) free(key string) {
	if c != nil {
		c.freed[key] = true
	}
}

// add records the constraint keys of row, a row the statement writes,
// failing on one that an earlier row of the statement has (nothing on a
// nil checker).
func (c *uniqueChecker) add(row []types.Datum) error {
	if c == nil {
		return nil
	}
	for _, uc := range c.cons {
		key, ok, err := uc.key(row)
		if err != nil || !ok {
			return err
		}
		if uc.seen[key] {
			return c.violation(uc, uc.detailOf(row, uc.u.Columns, c.rel))
		}
		uc.seen[key] = true
		uc.keys = append(uc.keys, key)
	}
	return nil
}

// key returns row's key in the constraint's index (the prefix of its
// entries); ok is false when a constraint column is NULL.
func (uc *uniqueCons) key(row []types.Datum) (string, bool, error) {
	for i, col := range uc.u.Columns {
		if row[col] == nil {
			return "", false, nil
		}
		uc.vals[i] = row[col]
	}
	var err error
	uc.buf, err = uc.index.AppendPrefixKey(uc.buf[:0], uc.vals)
	return string(uc.buf), true, err
}

// probe checks the keys added so far (since the last probe) against the
// index in snap, and forgets them.
func (c *uniqueChecker) probe(snap storage.Reader, layout *storage.Table) error {
	for _, uc := range c.cons {
		if len(uc.keys) == 0 {
			continue
		}
		if uc.probe == nil {
			p, err := uc.index.NewPrefixProbe(snap)
			if err != nil {
				return err
			}
			uc.probe = p
		}
		if err := c.probeCons(uc.probe, uc, layout); err != nil {
			return err
		}
		uc.keys = uc.keys[:0]
	}
	return nil
}

var errTaken = fmt.Errorf("taken")

func (c *uniqueChecker) probeCons(p *storage.PrefixProbe, uc *uniqueCons, layout *storage.Table) error {
	if p.Empty() {
		return nil
	}
	var detail string
	for _, key := range uc.keys {
		err := p.Scan([]byte(key), func(irow []types.Datum) error {
			clear(c.tmp)
			for k, pc := range c.rel.PK {
				c.tmp[pc] = irow[uc.pkAt[k]]
			}
			tk, err := layout.Key(c.tmp)
			if err != nil {
				return err
			}
			if !c.freed[string(tk)] {
				// The entry holds the same key values as the row.
				detail = uc.detailOf(irow, uc.keyAt, c.rel)
				return errTaken
			}
			return nil
		})
		if err == errTaken {
			return c.violation(uc, detail)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// detailOf is PostgreSQL's "Key (a, b)=(1, 2)" of the constraint's
// columns, whose values are row[at[i]].
func (uc *uniqueCons) detailOf(row []types.Datum, at []int, rel *catalog.Relation) string {
	names := make([]string, len(uc.u.Columns))
	vals := make([]string, len(uc.u.Columns))
	for i, col := range uc.u.Columns {
		names[i] = rel.Columns[col].Name
		vals[i] = types.Format(row[at[i]], rel.Columns[col].Type)
	}
	return fmt.Sprintf("Key (%s)=(%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
}

func (c *uniqueChecker) violation(uc *uniqueCons, detail string) error {
	_, own := catalog.SplitName(uc.u.Name)
	e := pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", own)
	e.Detail = detail + " already exists."
	return e
}
