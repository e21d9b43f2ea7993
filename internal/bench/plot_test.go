//go:build linux

package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// svgBar is a bar read back from a plot.
type svgBar struct {
	panel, series string
	value, width  float64
	title         string
}

// svgPlot is what a plot holds: its bars and its texts.
type svgPlot struct {
	bars  []svgBar
	texts []string
}

// readSVG parses an SVG plot with encoding/xml.
func readSVG(t *testing.T, r io.Reader) svgPlot {
	t.Helper()
	var p svgPlot
	d := xml.NewDecoder(r)
	var panel string
	var inBar, inText bool
	sawRoot := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parsing the SVG: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch {
			case tok.Name.Local == "svg":
				sawRoot = tok.Name.Space == "http://www.w3.org/2000/svg"
			case tok.Name.Local == "g" && attr["class"] == "panel":
				panel = attr["data-panel"]
			case tok.Name.Local == "rect" && attr["class"] == "bar":
				b := svgBar{panel: panel, series: attr["data-series"]}
				b.value, _ = strconv.ParseFloat(attr["data-value"], 64)
				b.width, _ = strconv.ParseFloat(attr["width"], 64)
				p.bars = append(p.bars, b)
				inBar = true
			case tok.Name.Local == "text":
				inText = true
				p.texts = append(p.texts, "")
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "rect":
				inBar = false
			case "text":
				inText = false
			}
		case xml.CharData:
			switch {
			case inText:
				p.texts[len(p.texts)-1] += string(tok)
			case inBar:
				p.bars[len(p.bars)-1].title += string(tok)
			}
		}
	}
	if !sawRoot {
		t.Fatal("no svg root element in the SVG namespace")
	}
	return p
}

// plotResults are a run's results as a plot gets them: timed steps on
// both systems, a latency step, a failed one, and a label to escape.
var plotResults = []Result{
	{System: "streamdb", Scenario: "load/insert-select", Rows: 1000, Elapsed: 2 * time.Second},
	{System: "postgres", Scenario: "load/insert-select", Rows: 1000, Elapsed: 4 * time.Second},
	{System: "streamdb", Scenario: "load/copy", Rows: 1000, Elapsed: 500 * time.Millisecond},
	{System: "streamdb", Scenario: `odd <&"'> name`, Rows: 1, Elapsed: time.Second},
	{System: "streamdb", Scenario: "freshness", Rows: 20, Elapsed: time.Second, P50: 2 * time.Millisecond, P99: 8 * time.Millisecond},
	{System: "postgres", Scenario: "freshness", Rows: 3, Elapsed: time.Second, P50: 20 * time.Millisecond, P99: 30 * time.Millisecond},
	{System: "streamdb", Scenario: "backfill/join", Err: errors.New("failed")},
}

// TestPlotSVG renders fixed results and reads the SVG back: a bar per
// value, widths proportional to the values within a panel, and every
// label present (escaped in the file, intact once parsed).
func TestPlotSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, plotResults); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `<&"'>`) {
		t.Error("a label went into the SVG unescaped")
	}
	p := readSVG(t, &buf)
	type key struct{ panel, series string }
	want := []struct {
		key   key
		value float64
	}{
		{key{"0", "streamdb"}, 2}, {key{"0", "postgres"}, 4}, {key{"0", "streamdb"}, 0.5}, {key{"0", "streamdb"}, 1},
		{key{"1", "streamdb p50"}, 0.002}, {key{"1", "streamdb p99"}, 0.008},
		{key{"1", "postgres p50"}, 0.02}, {key{"1", "postgres p99"}, 0.03},
	}
	if len(p.bars) != len(want) {
		t.Fatalf("%d bars, want %d: %+v", len(p.bars), len(want), p.bars)
	}
	perUnit := map[string]float64{} // width per second, per panel
	for i, b := range p.bars {
		w := want[i]
		if (key{b.panel, b.series}) != w.key || math.Abs(b.value-w.value) > 1e-12 {
			t.Errorf("bar %d: panel %s series %q value %v, want %+v", i, b.panel, b.series, b.value, w)
			continue
		}
		if b.width <= 0 || b.width > plotBarArea+1e-9 {
			t.Errorf("bar %d: width %v", i, b.width)
		}
		u := b.width / b.value
		if first, ok := perUnit[b.panel]; !ok {
			perUnit[b.panel] = u
		} else if math.Abs(u-first)/first > 1e-3 {
			t.Errorf("bar %d (%s %v): %v units per second, the panel's first bar %v: not proportional", i, b.series, b.value, u, first)
		}
	}
	// The longest bar of each panel takes the whole bar area.
	for _, b := range []svgBar{p.bars[1], p.bars[7]} {
		if math.Abs(b.width-plotBarArea) > 1e-3 {
			t.Errorf("longest bar %s %v: width %v, want %d", b.series, b.value, b.width, plotBarArea)
		}
	}
	for _, label := range []string{"load/insert-select", "load/copy", `odd <&"'> name`, "freshness",
		"streamdb", "postgres", "streamdb p99", "seconds per step (lower is better)"} {
		if !slices.Contains(p.texts, label) {
			t.Errorf("no text %q in %q", label, p.texts)
		}
	}
	if slices.Contains(p.texts, "backfill/join") {
		t.Error("a failed step was plotted")
	}
	if !strings.Contains(p.bars[3].title, `odd <&"'> name`) {
		t.Errorf("bar title %q", p.bars[3].title)
	}
}

func TestPlotEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if p := readSVG(t, &buf); len(p.bars) != 0 || !slices.Contains(p.texts, "no results to plot") {
		t.Errorf("plot of nothing: %+v", p)
	}
}

func TestWritePlot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.svg")
	if err := WritePlot(path, plotResults); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := readSVG(t, f); len(p.bars) != 8 {
		t.Errorf("%d bars in the file", len(p.bars))
	}
	for _, bad := range []string{filepath.Join(dir, "run.png"), filepath.Join(dir, "run")} {
		if err := WritePlot(bad, plotResults); err == nil || !strings.Contains(err.Error(), ".svg") {
			t.Errorf("WritePlot(%s): %v, want an error naming .svg", bad, err)
		}
		if _, err := os.Stat(bad); err == nil {
			t.Errorf("%s written", bad)
		}
	}
}
