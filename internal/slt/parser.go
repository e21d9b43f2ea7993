package slt

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// resultsDelimiter separates SQL from expected output.
const resultsDelimiter = "----"

// ParseError is malformed test-file text, located at the offending line.
type ParseError struct {
	Location
	// IncludedFrom lists the include lines that led to File, innermost first.
	IncludedFrom []Location
	Msg          string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s: parse error: %s%s", e.Location, e.Msg, includeTrail(e.IncludedFrom))
}

// parser reads one file's text into records. It is used once.
type parser struct {
	file    string
	from    []Location // include lines that led to file, innermost first
	lines   []string
	next    int // index of the next unread line
	records []record
	// Attributes waiting for the record they apply to.
	conditions []condition
	connection string
	retry      retry
}

// parse reads the records of src, which came from file, which the include
// lines from (innermost first) led to.
func parse(file string, from []Location, src string) ([]record, error) {
	p := &parser{file: file, from: from, lines: splitLines(src)}
	for p.next < len(p.lines) {
		lineNo := p.next + 1
		line := p.lines[p.next]
		p.next++
		if err := p.line(lineNo, line); err != nil {
			return nil, err
		}
	}
	return p.records, nil
}

func splitLines(src string) []string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// line handles one line outside any record body.
func (p *parser) line(lineNo int, line string) error {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return nil
	}
	tokens := strings.Fields(line)
	if len(tokens) == 0 {
		return nil
	}
	at := pos{Location: Location{File: p.file, Line: lineNo}, includedFrom: p.from}
	if err := p.directive(at, tokens); err != nil {
		return &ParseError{Location: at.Location, IncludedFrom: p.from, Msg: err.Error()}
	}
	return nil
}

// directive dispatches on the first word of a header line.
func (p *parser) directive(at pos, tokens []string) error {
	switch tokens[0] {
	case "statement":
		return p.statement(at, tokens[1:])
	case "query":
		return p.query(at, tokens[1:])
	case "system":
		return p.system(at, tokens[1:])
	case "skipif", "onlyif":
		return p.condition(tokens)
	case "connection":
		return p.connectionLine(tokens)
	case "retry":
		return p.retryLine(tokens)
	case "control":
		return p.control(at, tokens)
	}
	return p.simple(at, tokens)
}

// simple handles the one-line directives that take at most one argument.
func (p *parser) simple(at pos, tokens []string) error {
	switch {
	case tokens[0] == "halt" && len(tokens) == 1:
		p.records = append(p.records, &haltRecord{pos: at, conditions: p.takeConditions()})
	case tokens[0] == "sleep" && len(tokens) == 2:
		d, err := parseDuration(tokens[1])
		if err != nil {
			return err
		}
		p.records = append(p.records, &sleepRecord{pos: at, d: d})
	case tokens[0] == "include" && len(tokens) == 2:
		p.records = append(p.records, &includeRecord{pos: at, pattern: tokens[1]})
	case tokens[0] == "hash-threshold" && len(tokens) == 2:
		if _, err := strconv.ParseUint(tokens[1], 10, 64); err != nil {
			return fmt.Errorf("invalid number: %q", tokens[1])
		}
	case tokens[0] == "subtest" && len(tokens) == 2:
	default:
		return fmt.Errorf("invalid line: %q", strings.Join(tokens, " "))
	}
	return nil
}

func (p *parser) condition(tokens []string) error {
	if len(tokens) != 2 {
		return fmt.Errorf("%s takes one label, got %q", tokens[0], strings.Join(tokens, " "))
	}
	p.conditions = append(p.conditions, condition{only: tokens[0] == "onlyif", label: tokens[1]})
	return nil
}

func (p *parser) connectionLine(tokens []string) error {
	if len(tokens) != 2 {
		return fmt.Errorf("connection takes one name, got %q", strings.Join(tokens, " "))
	}
	p.connection = tokens[1]
	if p.connection == "default" {
		p.connection = ""
	}
	return nil
}

func (p *parser) retryLine(tokens []string) error {
	r, rest, err := cutRetry(tokens[1:], true)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("invalid retry line: %q", strings.Join(tokens, " "))
	}
	p.retry = r
	return nil
}

func (p *parser) control(at pos, tokens []string) error {
	if len(tokens) != 3 {
		return fmt.Errorf("invalid control: %q", strings.Join(tokens, " "))
	}
	switch tokens[1] {
	case "sortmode":
		m, ok := sortModeNames[tokens[2]]
		if !ok {
			return fmt.Errorf("invalid sort mode: %q", tokens[2])
		}
		p.records = append(p.records, &sortModeRecord{pos: at, mode: m})
	case "substitution":
		if tokens[2] != "on" && tokens[2] != "off" {
			return fmt.Errorf("invalid control: substitution must be on or off, got %q", tokens[2])
		}
		p.records = append(p.records, &substitutionRecord{pos: at, on: tokens[2] == "on"})
	default:
		return fmt.Errorf("invalid control: %q", tokens[1])
	}
	return nil
}

// cutRetry removes a trailing `retry N backoff D` from tokens. With whole
// set, tokens (the words after `retry` on its own line) must be `N backoff D`.
func cutRetry(tokens []string, whole bool) (retry, []string, error) {
	n := len(tokens)
	if whole {
		tokens = append([]string{"retry"}, tokens...)
		n = len(tokens)
	}
	if n < 4 || tokens[n-4] != "retry" || tokens[n-2] != "backoff" {
		if whole {
			return retry{}, nil, fmt.Errorf("invalid retry: want `retry N backoff DURATION`")
		}
		return retry{}, tokens, nil
	}
	attempts, err := strconv.Atoi(tokens[n-3])
	if err != nil || attempts < 0 {
		return retry{}, nil, fmt.Errorf("invalid number: %q", tokens[n-3])
	}
	d, err := parseDuration(tokens[n-1])
	if err != nil {
		return retry{}, nil, err
	}
	return retry{attempts: attempts, backoff: d}, tokens[:n-4], nil
}

// takeConditions returns and clears the pending skipif/onlyif lines.
func (p *parser) takeConditions() []condition {
	c := p.conditions
	p.conditions = nil
	return c
}

// takeCommon builds the shared part of a statement or query and clears the
// pending attributes.
func (p *parser) takeCommon(at pos, sql string, r retry) common {
	if r == (retry{}) {
		r = p.retry
	}
	c := common{pos: at, sql: sql, conditions: p.takeConditions(), connection: p.connection, retry: r}
	p.connection, p.retry = "", retry{}
	return c
}

// inlineError builds the expectation of `error <regex words>`.
func inlineError(words []string) (*errorExpect, error) {
	src := strings.Join(words, " ")
	if src == "" {
		return &errorExpect{}, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("invalid error message regex %q: %v", src, err)
	}
	return &errorExpect{re: re}, nil
}
