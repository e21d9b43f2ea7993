package slt

// Summary is the outcome of a Run.
type Summary struct {
	// Passed and Failed count executed statements and queries; Failed also
	// counts files that could not be loaded and unsupported records.
	Passed, Failed int
	// Skipped counts records skipped by skipif/onlyif.
	Skipped int
	// Failures describes every failure, in the order they happened.
	Failures []Failure
}

// Failure is one failed record, or a file that could not be loaded.
type Failure struct {
	// File and Line locate the record's header line (Line is 0 when the
	// file itself could not be read).
	File string
	Line int
	// IncludedFrom lists the include lines that led to File, innermost
	// first; empty for a file given to Run.
	IncludedFrom []Location
	// SQL is the record's SQL as written in the file (before substitution).
	SQL string
	// Message says what went wrong: expected vs actual, or a diff.
	Message string
}
