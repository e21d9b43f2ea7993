package failpoint

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	specs, err := Parse("storage/commit=error,after=3,times=2; stream/send=end,prob=0.5,seed=7")
	if err != nil {
		t.Fatal(err)
	}
	if got := specs[StorageCommit]; got != (Spec{Action: Error, After: 3, Times: 2}) {
		t.Errorf("storage/commit: %+v", got)
	}
	if got := specs[StreamSend]; got != (Spec{Action: End, Prob: 0.5, Seed: 7}) {
		t.Errorf("stream/send: %+v", got)
	}
	for _, bad := range []string{"nope=error", "storage/commit=explode", "storage/commit=error,after=x", "storage/commit"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}

func TestHit(t *testing.T) {
	if !Enabled {
		if _, err := Enable(StorageCommit, Spec{Action: Error}); !errors.Is(err, ErrDisabled) {
			t.Fatalf("Enable in a release build: %v", err)
		}
		if Hit(StorageCommit) != nil {
			t.Fatal("Hit fired in a release build")
		}
		return
	}
	defer Reset()
	if Hit(StorageCommit) != nil {
		t.Fatal("a point fired before it was enabled")
	}
	off, err := Enable(StorageCommit, Spec{Action: End, After: 2, Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	var fired []int
	for i := 0; i < 6; i++ {
		if err := Hit(StorageCommit); err != nil {
			if !errors.Is(err, ErrInjected) || !errors.Is(err, ErrEnd) {
				t.Fatalf("error %v matches neither ErrInjected nor ErrEnd", err)
			}
			fired = append(fired, i)
		}
	}
	if len(fired) != 2 || fired[0] != 2 || fired[1] != 3 {
		t.Fatalf("fired at hits %v, want [2 3]", fired)
	}
	if hits, n := Stats(StorageCommit); hits != 6 || n != 2 {
		t.Fatalf("stats: %d hits, %d fired", hits, n)
	}
	off()
	if Hit(StorageCommit) != nil {
		t.Fatal("fired after disable")
	}

	if _, err := Enable(StreamSend, Spec{Action: Panic}); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r, ok := recover().(*InjectedError); !ok || r.Name != StreamSend {
				t.Fatalf("recovered %v, want the failpoint's *InjectedError", r)
			}
		}()
		_ = Hit(StreamSend)
		t.Fatal("Panic did not panic")
	}()

	if _, err := Enable(StorageSync, Spec{Action: Error, Prob: 0.25, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i < 4000; i++ {
		if Hit(StorageSync) != nil {
			n++
		}
	}
	if n < 800 || n > 1200 {
		t.Fatalf("prob 0.25 fired %d of 4000 times", n)
	}
}
