package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/internal/types"
)

// TestSinkValuesOfNewTypes: a Kafka sink writes uuid, inet, time, timetz
// and character(n) values as their text, in JSON and in Avro, and an
// Avro source reads that text back as the values.
func TestSinkValuesOfNewTypes(t *testing.T) {
	for _, c := range []struct {
		typ  types.Type
		text string
	}{
		{types.TUUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{types.TInet, "10.1.2.3/8"},
		{types.TCidr, "2001:db8::/32"},
		{types.TTime, "12:34:56.5"},
		{types.TTimeTZ, "12:00:00+02"},
		{types.Type{ID: types.IDBpchar, Width: 3}, "a  "},
	} {
		d, err := types.Parse(c.text, c.typ)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(AppendJSONValue(nil, d, c.typ)); got != `"`+c.text+`"` {
			t.Errorf("%s: JSON %s", c.typ, got)
		}
		v, err := avroSinkValue(d, c.typ)
		if err != nil || v != c.text {
			t.Errorf("%s: Avro %#v, %v", c.typ, v, err)
		}
		back, err := avroScalar(c.text, c.typ)
		if err != nil || back != d {
			t.Errorf("%s: Avro source read %#v, %v", c.typ, back, err)
		}
	}
}
