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
// interval columns, whose keys that format spelled differently; a store
// of another recorded format is refused.
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
}
