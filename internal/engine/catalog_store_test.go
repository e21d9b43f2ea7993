package engine

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/storage"
)

// TestKeyFormat: a store records its key format; a store of the format
// before the version was recorded opens (and is upgraded) unless it has
// interval columns, whose keys that format spelled differently; one of
// format 2 likewise unless its state may hold arrays; a store of another
// recorded format is refused.
func TestKeyFormat(t *testing.T) {
	ctx := context.Background()
	open := func(dir string, setup ...string) error {
		t.Helper()
		db, err := Open(dir, &Options{NoSync: true})
		if err != nil {
			return err
		}
		defer db.Close()
		for _, q := range setup {
			if _, err := db.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}
	meta := func(dir string, fn func(st *storage.Store) error) {
		t.Helper()
		st, err := storage.Open(dir, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := fn(st); err != nil {
			t.Fatal(err)
		}
	}
	forget := func(st *storage.Store) error { return st.DeleteMeta(metaKeyFormat) }

	plain := t.TempDir()
	if err := open(plain, "CREATE TABLE t (id int PRIMARY KEY, ts timestamp)"); err != nil {
		t.Fatal(err)
	}
	meta(plain, forget)
	if err := open(plain); err != nil {
		t.Fatalf("a version-1 store without intervals: %v", err)
	}
	meta(plain, func(st *storage.Store) error {
		v, ok, err := st.GetMeta(metaKeyFormat)
		if err == nil && (!ok || binary.BigEndian.Uint32(v) != storage.KeyFormat) {
			t.Errorf("the store was not upgraded: %x %v", v, ok)
		}
		return err
	})

	withIv := t.TempDir()
	if err := open(withIv, "CREATE TABLE t (id int PRIMARY KEY, iv interval)"); err != nil {
		t.Fatal(err)
	}
	if err := open(withIv); err != nil {
		t.Fatalf("reopening a current store: %v", err)
	}
	meta(withIv, forget)
	if err := open(withIv); err == nil || !strings.Contains(err.Error(), `interval column "iv"`) {
		t.Fatalf("a version-1 store with an interval column: %v", err)
	}
	meta(withIv, func(st *storage.Store) error { return st.PutMeta(metaKeyFormat, []byte{0, 0, 0, 9}) })
	if err := open(withIv); err == nil || !strings.Contains(err.Error(), "key format 9") {
		t.Fatalf("a store of format 9: %v", err)
	}

	// Format 2 keyed arrays by their text: such a store is upgraded
	// unless its state may hold arrays.
	v2 := func(st *storage.Store) error { return st.PutMeta(metaKeyFormat, []byte{0, 0, 0, 2}) }
	meta(plain, v2)
	if err := open(plain); err != nil {
		t.Fatalf("a format-2 store without arrays: %v", err)
	}
	meta(plain, func(st *storage.Store) error {
		v, ok, err := st.GetMeta(metaKeyFormat)
		if err == nil && (!ok || binary.BigEndian.Uint32(v) != storage.KeyFormat) {
			t.Errorf("the format-2 store was not upgraded: %x %v", v, ok)
		}
		return err
	})
	withArr := t.TempDir()
	if err := open(withArr, "CREATE TABLE t (id int PRIMARY KEY, a int[])"); err != nil {
		t.Fatal(err)
	}
	meta(withArr, v2)
	if err := open(withArr); err == nil || !strings.Contains(err.Error(), `array column "a"`) {
		t.Fatalf("a format-2 store with an array column: %v", err)
	}
	withView := t.TempDir()
	if err := open(withView, "CREATE TABLE t (id int PRIMARY KEY, s text)",
		"CREATE MATERIALIZED VIEW v AS SELECT id FROM t WHERE cardinality(string_to_array(s, ',')) > 1"); err != nil {
		t.Fatal(err)
	}
	meta(withView, v2)
	if err := open(withView); err == nil || !strings.Contains(err.Error(), `view "v" may compute arrays`) {
		t.Fatalf("a format-2 store with a view that may compute arrays: %v", err)
	}
}
