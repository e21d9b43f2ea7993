package slt

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// loader reads a file and inlines its includes. It is used once per file
// given to Run.
type loader struct {
	active []string // files being loaded, outermost first, to find cycles
}

// loadFile returns the records of path with every include expanded.
func loadFile(path string) ([]record, error) {
	return (&loader{}).load(path, nil)
}

// load reads path, which the include lines from (innermost first) led to.
func (l *loader) load(path string, from []Location) ([]record, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	recs, err := parse(path, from, string(src))
	if err != nil {
		return nil, err
	}
	l.active = append(l.active, filepath.Clean(path))
	defer func() { l.active = l.active[:len(l.active)-1] }()
	var out []record
	for _, rec := range recs {
		inc, ok := rec.(*includeRecord)
		if !ok {
			out = append(out, rec)
			continue
		}
		sub, err := l.include(path, inc, from)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// include returns the records of every file inc's glob matches, in name
// order, resolved relative to the directory of path.
func (l *loader) include(path string, inc *includeRecord, from []Location) ([]record, error) {
	fail := func(format string, args ...any) error {
		return &ParseError{Location: inc.Location, IncludedFrom: from, Msg: fmt.Sprintf(format, args...)}
	}
	pattern := inc.pattern
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(filepath.Dir(path), pattern)
	}
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fail("invalid include pattern %q: %v", inc.pattern, err)
	}
	if len(matches) == 0 {
		return nil, fail("include %q matches no file", inc.pattern)
	}
	slices.Sort(matches)
	via := append([]Location{inc.Location}, from...)
	var out []record
	for _, m := range matches {
		if slices.Contains(l.active, filepath.Clean(m)) {
			return nil, fail("include cycle: %s includes itself", m)
		}
		sub, err := l.load(m, via)
		if err != nil {
			return nil, wrapIncludeErr(err, inc, from)
		}
		out = append(out, sub...)
	}
	return out, nil
}

// wrapIncludeErr locates a failure to read an included file at the include
// line; parse errors inside it keep their own location.
func wrapIncludeErr(err error, inc *includeRecord, from []Location) error {
	if _, ok := err.(*ParseError); ok {
		return err
	}
	return &ParseError{Location: inc.Location, IncludedFrom: from, Msg: err.Error()}
}
