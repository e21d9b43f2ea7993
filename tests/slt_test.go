package tests

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/streamdb/streamdb/internal/slt"
	"github.com/streamdb/streamdb/internal/sltdb"
)

// TestSLT runs every .slt file under slt/, each on a fresh in-memory
// database.
func TestSLT(t *testing.T) {
	files, err := filepath.Glob("slt/*.slt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no slt files: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			db := openMem(t)
			sum, err := slt.Run(context.Background(), sltdb.Open(db), []string{f}, slt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, fl := range sum.Failures {
				t.Error(fl.String())
			}
			t.Log(slt.FormatSummary(sum))
		})
	}
}
