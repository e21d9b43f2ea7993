package write

import (
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/streamdb/streamdb/internal/chunk"
)

// Rows of COPY FROM go into the stage's column builders as they are read,
// not through a row of Datums: an integer field (the common kind) is
// parsed from the data's bytes straight into its Int64 (Int32, Int16)
// builder, boxed in no interface, and the other fields are decoded as
// Datums as before. The rows' storage keys and values are encoded from
// each chunk once it is built (copyStage.addKeys, with
// storage.Table.AppendRowKeyAt and AppendRowAt, the encodings of the
// Datum path), so no row is encoded twice. A row reaches the builders
// only once all its fields are read and checked: a bad row leaves
// nothing half-appended.

// fill reads a row's fields, and the left-out columns' defaults, into
// l.row, l.unboxed and l.ints, and checks it.
func (l *copyLoad) fill(fields [][]byte) error {
	clear(l.row)
	clear(l.unboxed)
	for i, d := range l.defaults {
		if d != nil {
			v, err := d.Eval(nil)
			if err != nil {
				return err
			}
			l.row[i] = v
		}
	}
	for i, f := range fields {
		if f == nil {
			continue
		}
		col := l.targets[i]
		if n, ok := l.dec.DecodeInt(i, f); ok {
			l.ints[col], l.unboxed[col] = n, true
			continue
		}
		d, err := l.dec.Decode(i, f)
		if err != nil {
			return l.withContext(err, l.names[i], f)
		}
		l.row[col] = d
	}
	if l.rel.RowID {
		pk := l.rel.PK[0]
		l.row[pk], l.unboxed[pk], l.ints[pk] = nil, true, l.w.e.NextRowID()
	}
	if l.rules == nil && l.uniq == nil {
		return l.checkNotNull()
	}
	return l.applyRules()
}

// applyRules computes the generated columns of the row and checks its
// constraints (row_rules.go), on the row boxed.
func (l *copyLoad) applyRules() error {
	for i, u := range l.unboxed {
		if u {
			l.row[i], l.unboxed[i] = l.ints[i], false
		}
	}
	if err := generate(l.rules, l.row); err != nil {
		return l.withContext(err, "", nil)
	}
	if err := l.checkNotNull(); err != nil {
		return err
	}
	if err := checkRow(l.rules, l.rel, l.row); err != nil {
		return l.withContext(err, "", nil)
	}
	if l.uniq != nil {
		if err := l.uniq.add(l.row); err != nil {
			return l.withContext(err, "", nil)
		}
	}
	return nil
}

// appendRow appends the row fill read to the stage's builders.
func (l *copyLoad) appendRow() {
	for j, fb := range l.stage.b.Columns() {
		if l.unboxed[j] {
			appendInt(fb, l.ints[j])
		} else {
			chunk.AppendDatum(fb, l.row[j])
		}
	}
}

// appendInt appends n to fb, the builder of an integer column.
func appendInt(fb array.Builder, n int64) {
	switch b := fb.(type) {
	case *array.Int64Builder:
		b.Append(n)
	case *array.Int32Builder:
		b.Append(int32(n))
	case *array.Int16Builder:
		b.Append(int16(n))
	default:
		chunk.AppendDatum(fb, n)
	}
}
