package engine

import "testing"

// TestSnapshotPercent: a job's snapshot progress counts each scan's rows
// up to its size, is 0 until every scan has sized its snapshot, and
// stays within 0..99.
func TestSnapshotPercent(t *testing.T) {
	for _, tc := range []struct {
		done, sized  int64
		known, scans int
		want         float64
	}{
		{0, 0, 0, 2, 0},
		{50, 100, 1, 1, 49.5},
		{50, 100, 1, 2, 0}, // the other scan (800 rows read, no size yet): not known
		{100, 100, 2, 2, 99},
		{180, 100, 1, 1, 99}, // read past an estimate
		{10, 100, 0, 0, 9.9},
	} {
		if got := snapshotPercent(tc.done, tc.sized, tc.known, tc.scans); got != tc.want {
			t.Errorf("snapshotPercent(%d, %d, %d, %d) = %v, want %v", tc.done, tc.sized, tc.known, tc.scans, got, tc.want)
		}
	}
}
