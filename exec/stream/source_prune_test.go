package stream

import (
	"reflect"
	"testing"

	"github.com/streamdb/streamdb/storage"
)

// TestDispatcherReadColumns: a source's dispatcher reports the union of
// the columns its exchanges' receivers read, and every column (nil) as
// soon as one receiver does not say, or reads them all.
func TestDispatcherReadColumns(t *testing.T) {
	ex := func(read []bool) *Exchange {
		e, err := NewExchange([]*Output{{C: make(chan Message)}}, []storage.VnodeBitmap{storage.AllVnodes()}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.SetReads(read)
		return e
	}
	var d Dispatcher
	if got := d.ReadColumns(nil, 4); got != nil {
		t.Fatalf("no receiver: %v, want nil", got)
	}
	d.AddExchange(ex([]bool{true, false, false, false}))
	d.AddExchange(ex([]bool{false, false, true, false}))
	if got := d.ReadColumns(nil, 4); !reflect.DeepEqual(got, []bool{true, false, true, false}) {
		t.Fatalf("union: %v", got)
	}
	d.AddExchange(ex([]bool{false, true, false, true}))
	if got := d.ReadColumns(nil, 4); got != nil {
		t.Fatalf("every column read: %v, want nil", got)
	}
	d = Dispatcher{}
	d.AddExchange(ex([]bool{true, false, false, false}))
	d.AddExchange(ex(nil))
	if got := d.ReadColumns(nil, 4); got != nil {
		t.Fatalf("a receiver reading everything: %v, want nil", got)
	}
	d = Dispatcher{}
	d.AddExchange(ex([]bool{true, false, false, false}))
	d.AddOutput(&Output{C: make(chan Message)})
	if got := d.ReadColumns(nil, 4); got != nil {
		t.Fatalf("a broadcast output: %v, want nil", got)
	}
}
