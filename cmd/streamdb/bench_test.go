//go:build linux

package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPlot runs the smallest scenario with --plot: the table still
// prints, and the chart is an SVG that parses, with a bar per step.
func TestBenchPlot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "F.svg")
	code, stdout, stderr := runCapture("bench", "--rows", "20000", "--tmp", dir, "--plot", path, "load")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "load/copy") {
		t.Errorf("no table printed:\n%s", stdout)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bars := map[string]int{} // by series
	d := xml.NewDecoder(f)
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s does not parse: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			var class, series string
			for _, a := range se.Attr {
				switch a.Name.Local {
				case "class":
					class = a.Value
				case "data-series":
					series = a.Value
				}
			}
			if class == "bar" {
				bars[series]++
			}
		}
	}
	if bars["streamdb"] != 2 { // load/insert-select, load/copy
		t.Errorf("bars %v, want 2 of streamdb", bars)
	}
}

// TestBenchPlotFormat: a FILE that is not .svg is refused before any
// scenario runs.
func TestBenchPlotFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "F.png")
	code, stdout, stderr := runCapture("bench", "--rows", "20000", "--plot", path, "load")
	if code != exitFailure || !strings.Contains(stderr, ".svg") || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("a .png was written")
	}
}
