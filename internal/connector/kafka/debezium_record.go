package kafka

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/connector"
	"github.com/streamdb/streamdb/internal/types"
)

// SetKey tells a FORMAT DEBEZIUM reader its relation's primary key
// columns (indexes among the payload's), so that an update that keeps
// its key is one upsert; without it every update with a before image
// deletes before's key first. Call it before Start.
func (r *Reader) SetKey(pk []int) {
	if d, ok := r.dec.(*debeziumDecoder); ok {
		d.key = append([]int(nil), pk...)
	}
}

// debeziumRecord decodes one message of a FORMAT DEBEZIUM topic (see
// debezium.go): a create, read or update is its after row (an update
// that changed the key also deletes before's key, in Before); a delete is
// a Delete of before's key; a Kafka tombstone, or a payload of null, is
// no row and no error.
func (r *Reader) debeziumRecord(rec *kgo.Record) connector.SplitRecord {
	out := connector.SplitRecord{Split: rec.Partition, Offset: rec.Offset}
	if rec.Value == nil {
		return out // the tombstone after a delete: log compaction's, not a change
	}
	d := r.dec.(*debeziumDecoder)
	ev, err := d.event(rec.Value)
	switch {
	case err != nil:
		out.Err = err
		return out
	case ev.skip:
		return out
	case ev.op == "d":
		out.Row, out.Delete = ev.before, true
	default:
		out.Row = ev.after
		if ev.before != nil && d.keyChanged(ev.before, ev.after) {
			out.Before = r.withIncludes(ev.before, rec)
		}
	}
	out.Row = r.withIncludes(out.Row, rec)
	return out
}

// withIncludes appends the INCLUDE columns' values of rec to row.
func (r *Reader) withIncludes(row []types.Datum, rec *kgo.Record) []types.Datum {
	for _, in := range r.opts.Include {
		row = append(row, in.value(rec))
	}
	return row
}
