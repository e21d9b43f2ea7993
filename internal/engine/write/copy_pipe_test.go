package write_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/streamdb/streamdb/internal/engine/write"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestCopyCancelled: a COPY whose statement is cancelled while the data
// streams (the client's cancel) fails with 57014, loads nothing, and
// leaves no goroutine of its staging (the writer, the key spill) behind.
func TestCopyCancelled(t *testing.T) {
	write.SetStagingLimits(t, 64<<10, 64<<10)
	t.Setenv("TMPDIR", t.TempDir())
	db := openCopyDB(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gen := genRows(0, 1<<40) // endless but for the cancel
	line := gen.line
	gen.line = func(i int) string {
		if i == 50000 {
			cancel()
		}
		return line(i)
	}
	_, err := db.CopyFrom(ctx, "COPY t FROM STDIN", gen)
	if pgerr.Code(err) != pgerr.QueryCanceled {
		t.Fatalf("cancelled COPY: %v", err)
	}
	if got := viewRow(t, db); got != "0|NULL" {
		t.Fatalf("view after the cancelled COPY: %s", got)
	}
	if dirs := copyTempDirs(t); len(dirs) != 0 {
		t.Fatalf("staging directories left: %v", dirs)
	}
}

// TestCopyWriterFails: an error of the stage's writer goroutine (here:
// it cannot make the temporary file its chunks spill to) fails the COPY
// with that error, loads nothing, and leaves no goroutine behind; the
// next COPY works.
func TestCopyWriterFails(t *testing.T) {
	write.SetStagingLimits(t, 0, 64<<10)
	db := openCopyDB(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	_, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(0, 30000))
	if err == nil || !strings.Contains(err.Error(), "temporary directory") {
		t.Fatalf("COPY with no temporary directory: %v", err)
	}
	if got := viewRow(t, db); got != "0|NULL" {
		t.Fatalf("view after the failed COPY: %s", got)
	}
	t.Setenv("TMPDIR", t.TempDir())
	if res, err := db.CopyFrom(ctx, "COPY t FROM STDIN", genRows(0, 30000)); err != nil || res.RowsAffected != 30000 {
		t.Fatalf("COPY: %+v, %v", res, err)
	}
	if got := viewRow(t, db); got != "30000|899970000" {
		t.Fatalf("view: %s", got)
	}
}
