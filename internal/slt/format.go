package slt

import (
	"fmt"
	"slices"
	"strings"
)

// render is how a value appears in expected output.
func render(v Value) string {
	switch {
	case v.Null:
		return "NULL"
	case v.Text == "":
		return "(empty)"
	}
	return v.Text
}

// normalize collapses runs of whitespace into one space and trims the ends,
// as sqllogictest-rs's default normalizer does.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// actualLines renders rows as normalized output lines.
func actualLines(rows [][]Value) []string {
	lines := make([]string, len(rows))
	for i, row := range rows {
		vals := make([]string, len(row))
		for j, v := range row {
			vals[j] = render(v)
		}
		lines[i] = normalize(strings.Join(vals, " "))
	}
	return lines
}

// expectedLines normalizes the expected lines of a record.
func expectedLines(rows []string) []string {
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = normalize(r)
	}
	return lines
}

// arrange orders normalized lines for comparison under mode. valuesort
// returns one value per line.
func arrange(lines []string, mode SortMode) []string {
	switch mode {
	case RowSort:
		lines = slices.Clone(lines)
		slices.Sort(lines)
	case ValueSort:
		var vals []string
		for _, l := range lines {
			vals = append(vals, strings.Fields(l)...)
		}
		slices.Sort(vals)
		lines = vals
	}
	return lines
}

// includeTrail renders an include chain as "\nat a.slt:3\nat b.slt:1".
func includeTrail(from []Location) string {
	var b strings.Builder
	for _, l := range from {
		b.WriteString("\nat " + l.String())
	}
	return b.String()
}

// String renders f the way sqllogictest-rs reports a failure: location,
// SQL, then the message (which for result mismatches is a diff).
func (f Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d%s\n", f.File, f.Line, includeTrail(f.IncludedFrom))
	if f.SQL != "" {
		fmt.Fprintf(&b, "[SQL] %s\n", f.SQL)
	}
	b.WriteString(f.Message)
	return b.String()
}

// FormatSummary returns the final line of a run: "N passed, M failed".
func FormatSummary(s Summary) string {
	return fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed)
}

// errorMismatch describes an error that is not the expected one.
func errorMismatch(expected errorExpect, actual error) string {
	return fmt.Sprintf("error message mismatch\n[Expected] %s\n[Actual] %s", expected, actual)
}

// resultMismatch describes differing query output as a line diff.
func resultMismatch(expected, actual []string) string {
	diff := strings.TrimSuffix(diffLines(expected, actual), "\n")
	return "query result mismatch\n[Diff] (-expected|+actual)\n" + diff
}
