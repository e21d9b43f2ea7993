package slt

import "strings"

// maxDiffCells bounds the LCS table; larger outputs are shown whole.
const maxDiffCells = 4 << 20

// diffLines renders a line diff of a against b: "    " for common lines,
// "-   " for lines only in a and "+   " for lines only in b.
func diffLines(a, b []string) string {
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		return fullDiff(a, b)
	}
	lcs := lcsTable(a, b)
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("    " + a[i] + "\n")
			i, j = i+1, j+1
		case j >= len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			out.WriteString("-   " + a[i] + "\n")
			i++
		default:
			out.WriteString("+   " + b[j] + "\n")
			j++
		}
	}
	return out.String()
}

// lcsTable returns t where t[i][j] is the length of the longest common
// subsequence of a[i:] and b[j:].
func lcsTable(a, b []string) [][]int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t
}

// fullDiff shows every line of a as removed and every line of b as added.
func fullDiff(a, b []string) string {
	var out strings.Builder
	for _, l := range a {
		out.WriteString("-   " + l + "\n")
	}
	for _, l := range b {
		out.WriteString("+   " + l + "\n")
	}
	return out.String()
}
