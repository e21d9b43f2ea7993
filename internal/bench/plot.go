//go:build linux

package bench

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A plot of a run's results (streamdb bench --plot): grouped horizontal
// bars, a group per scenario step and a bar per system in it (streamdb,
// and PostgreSQL when the run compared). Steps fall in two panels, each
// with a scale of its own on which a bar's width is proportional to its
// value: the seconds of the steps timed as a whole, and the p50 and p99
// latencies of the steps that measure latency (freshness, the isolation
// phases), a bar per system and percentile. Failed steps are left out.
// The SVG is written by hand: no dependency, and the test reads it back
// with encoding/xml.

// plotPanel is a panel of the plot: its groups share one scale.
type plotPanel struct {
	Title  string
	Groups []plotGroup
}

// plotGroup is a scenario step: its bars, in the order of the results.
type plotGroup struct {
	Label string
	Bars  []plotBar
}

// plotBar is one figure, in seconds, of one series ("streamdb",
// "postgres p99").
type plotBar struct {
	Series string
	Value  float64
}

// plotPanels arranges results into the plot's panels.
func plotPanels(results []Result) []plotPanel {
	timed := plotPanel{Title: "seconds per step (lower is better)"}
	latency := plotPanel{Title: "latency per step, p50 and p99 (lower is better)"}
	for _, r := range results {
		switch {
		case r.Err != nil:
		case r.P50 > 0:
			latency.add(r.Scenario, plotBar{r.System + " p50", r.P50.Seconds()}, plotBar{r.System + " p99", r.P99.Seconds()})
		case r.Elapsed > 0:
			timed.add(r.Scenario, plotBar{r.System, r.Elapsed.Seconds()})
		}
	}
	var out []plotPanel
	for _, p := range []plotPanel{timed, latency} {
		if len(p.Groups) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// add puts bars in label's group, the group made on first use.
func (p *plotPanel) add(label string, bars ...plotBar) {
	for i := range p.Groups {
		if p.Groups[i].Label == label {
			p.Groups[i].Bars = append(p.Groups[i].Bars, bars...)
			return
		}
	}
	p.Groups = append(p.Groups, plotGroup{Label: label, Bars: bars})
}

// max is the largest value of the panel's bars.
func (p *plotPanel) max() float64 {
	var m float64
	for _, g := range p.Groups {
		for _, b := range g.Bars {
			m = max(m, b.Value)
		}
	}
	return m
}

// The plot's layout, in SVG user units (pixels).
const (
	plotWidth      = 960
	plotMargin     = 16
	plotLabelWidth = 280 // the scenario labels, right-aligned
	plotBarArea    = 520 // the longest bar of a panel
	plotBarHeight  = 14
	plotBarGap     = 2
	plotGroupGap   = 10
	plotTitleRow   = 28
)

// CheckPlotPath checks that path names a format WritePlot writes: SVG,
// by its extension .svg.
func CheckPlotPath(path string) error {
	if strings.EqualFold(filepath.Ext(path), ".svg") {
		return nil
	}
	return fmt.Errorf("plot %q: only SVG is written (a FILE ending in .svg); convert it to PNG with rsvg-convert or a browser", path)
}

// WritePlot writes results' plot into the file path (see CheckPlotPath).
func WritePlot(path string, results []Result) error {
	if err := CheckPlotPath(path); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := WriteSVG(f, results); err != nil {
		f.Close()
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

// WriteSVG writes results as an SVG chart to w (see plotPanels).
func WriteSVG(w io.Writer, results []Result) error {
	panels := plotPanels(results)
	series := plotSeries(panels)
	bw := bufio.NewWriter(w)
	height := plotHeight(panels)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		plotWidth, height, plotWidth, height)
	fmt.Fprintf(bw, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	y := plotMargin
	fmt.Fprintf(bw, `<text class="title" x="%d" y="%d" font-size="16" font-weight="bold">streamdb bench</text>`+"\n", plotMargin, y+12)
	writeLegend(bw, series, y)
	y += plotTitleRow
	if len(panels) == 0 {
		fmt.Fprintf(bw, `<text x="%d" y="%d">no results to plot</text>`+"\n", plotMargin, y+12)
	}
	for i := range panels {
		y = writePanel(bw, &panels[i], i, y)
	}
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// plotHeight is the height of the plot of panels.
func plotHeight(panels []plotPanel) int {
	h := 2*plotMargin + plotTitleRow
	if len(panels) == 0 {
		h += plotTitleRow
	}
	for _, p := range panels {
		h += plotTitleRow
		for _, g := range p.Groups {
			h += len(g.Bars)*(plotBarHeight+plotBarGap) + plotGroupGap
		}
	}
	return h
}

// plotSeries lists the series of panels in order of appearance.
func plotSeries(panels []plotPanel) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range panels {
		for _, g := range p.Groups {
			for _, b := range g.Bars {
				if !seen[b.Series] {
					seen[b.Series] = true
					out = append(out, b.Series)
				}
			}
		}
	}
	return out
}

// writeLegend writes a swatch and name per series, right of the title.
func writeLegend(w io.Writer, series []string, y int) {
	x := plotLabelWidth
	for _, s := range series {
		fmt.Fprintf(w, `<rect class="swatch" x="%d" y="%d" width="12" height="12" fill="%s"/>`, x, y+2, seriesColor(s))
		fmt.Fprintf(w, `<text class="legend" x="%d" y="%d">%s</text>`+"\n", x+16, y+12, escapeXML(s))
		x += 24 + 7*len(s)
	}
}

// writePanel writes panel number i from y down and returns the y below it.
func writePanel(w io.Writer, p *plotPanel, i, y int) int {
	fmt.Fprintf(w, `<g class="panel" data-panel="%d">`+"\n", i)
	fmt.Fprintf(w, `<text class="panel-title" x="%d" y="%d" font-weight="bold">%s</text>`+"\n", plotMargin, y+18, escapeXML(p.Title))
	y += plotTitleRow
	scale := 0.0
	if m := p.max(); m > 0 {
		scale = plotBarArea / m
	}
	for _, g := range p.Groups {
		gh := len(g.Bars)*(plotBarHeight+plotBarGap) - plotBarGap
		fmt.Fprintf(w, `<text class="label" x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n",
			plotLabelWidth-8, y+gh/2, escapeXML(g.Label))
		for _, b := range g.Bars {
			writeBar(w, g.Label, b, b.Value*scale, y)
			y += plotBarHeight + plotBarGap
		}
		y += plotGroupGap - plotBarGap
	}
	fmt.Fprintln(w, "</g>")
	return y
}

// writeBar writes bar b of group label, width wide, at y, its value
// after it.
func writeBar(w io.Writer, label string, b plotBar, width float64, y int) {
	value := fmtDur(time.Duration(b.Value * float64(time.Second)))
	fmt.Fprintf(w, `<rect class="bar" data-series="%s" data-value="%g" x="%d" y="%d" width="%.3f" height="%d" fill="%s"><title>%s</title></rect>`,
		escapeXML(b.Series), b.Value, plotLabelWidth, y, width, plotBarHeight, seriesColor(b.Series),
		escapeXML(label+", "+b.Series+": "+value))
	fmt.Fprintf(w, `<text class="value" x="%.3f" y="%d" dominant-baseline="middle" font-size="11">%s</text>`+"\n",
		float64(plotLabelWidth)+width+4, y+plotBarHeight/2, escapeXML(b.Series+" "+value))
}

// seriesColor is a series' fill: a color per system, lighter for p99.
func seriesColor(series string) string {
	system, pct, _ := strings.Cut(series, " ")
	colors := map[string][2]string{
		"streamdb": {"#1f77b4", "#9ecae1"},
		"postgres": {"#ff7f0e", "#fdae6b"},
	}
	c, ok := colors[system]
	if !ok {
		c = [2]string{"#7f7f7f", "#c7c7c7"}
	}
	if pct == "p99" {
		return c[1]
	}
	return c[0]
}

// escapeXML escapes s for an SVG's text or attribute value.
func escapeXML(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
