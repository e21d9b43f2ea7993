package slt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// statement parses `statement ok|error [regex]|count N` and its body.
func (p *parser) statement(at pos, args []string) error {
	r, args, err := cutRetry(args, false)
	if err != nil {
		return err
	}
	rec := &statementRecord{}
	switch {
	case len(args) == 1 && args[0] == "ok":
	case len(args) >= 1 && args[0] == "error":
		if rec.expectErr, err = inlineError(args[1:]); err != nil {
			return err
		}
	case len(args) == 2 && args[0] == "count":
		if rec.count, err = strconv.ParseInt(args[1], 10, 64); err != nil || rec.count < 0 {
			return fmt.Errorf("invalid number: %q", args[1])
		}
		rec.hasCount = true
	default:
		return fmt.Errorf("invalid statement header: want ok, error [regex] or count N")
	}
	sql, delimited, err := p.sqlBody()
	if err != nil {
		return err
	}
	if delimited {
		if rec.expectErr == nil {
			return errors.New("statement should have no result, use `query` instead")
		}
		if err := p.multilineError(rec.expectErr); err != nil {
			return err
		}
	}
	rec.common = p.takeCommon(at, sql, r)
	p.records = append(p.records, rec)
	return nil
}

// query parses `query <types> [sortmode] [label]` or `query error [regex]`
// and its body.
func (p *parser) query(at pos, args []string) error {
	r, args, err := cutRetry(args, false)
	if err != nil {
		return err
	}
	rec := &queryRecord{}
	if len(args) >= 1 && args[0] == "error" {
		if rec.expectErr, err = inlineError(args[1:]); err != nil {
			return err
		}
	} else if err := rec.header(args); err != nil {
		return err
	}
	sql, delimited, err := p.sqlBody()
	if err != nil {
		return err
	}
	if delimited {
		if err := p.queryOutput(rec); err != nil {
			return err
		}
	}
	rec.common = p.takeCommon(at, sql, r)
	p.records = append(p.records, rec)
	return nil
}

// header reads `<types> [sortmode] [label]`. A second word that is not a
// sort mode is taken as the label.
func (q *queryRecord) header(args []string) error {
	if len(args) > 3 {
		return fmt.Errorf("invalid query header: unexpected %q", strings.Join(args[3:], " "))
	}
	if len(args) >= 1 {
		q.types = args[0]
	}
	rest := args[min(len(args), 1):]
	if len(rest) >= 1 {
		if m, ok := sortModeNames[rest[0]]; ok {
			q.sortMode, q.hasSort = m, true
			rest = rest[1:]
		} else if len(rest) == 2 {
			return fmt.Errorf("invalid sort mode: %q", rest[0])
		}
	}
	if len(rest) == 1 {
		q.label = rest[0]
	}
	return nil
}

// queryOutput reads what follows ---- in a query record.
func (p *parser) queryOutput(q *queryRecord) error {
	if q.expectErr != nil {
		return p.multilineError(q.expectErr)
	}
	for p.next < len(p.lines) && !blank(p.lines[p.next]) {
		q.rows = append(q.rows, p.lines[p.next])
		p.next++
	}
	return nil
}

// system parses `system ok` and its command, which the runner refuses.
func (p *parser) system(at pos, args []string) error {
	if len(args) != 1 || args[0] != "ok" {
		return fmt.Errorf("invalid system header: want `system ok`")
	}
	cmd, _, err := p.sqlBody()
	if err != nil {
		return err
	}
	p.records = append(p.records, &systemRecord{common: p.takeCommon(at, cmd, retry{})})
	return nil
}

// sqlBody reads the lines after a header up to a blank line, the end of
// the file or ----, and reports whether it stopped at ----.
func (p *parser) sqlBody() (sql string, delimited bool, err error) {
	var body []string
	for p.next < len(p.lines) && !blank(p.lines[p.next]) {
		line := p.lines[p.next]
		p.next++
		if strings.TrimSpace(line) == resultsDelimiter {
			delimited = true
			break
		}
		body = append(body, line)
	}
	if len(body) == 0 {
		return "", false, errors.New("missing SQL after the record header")
	}
	return strings.Join(body, "\n"), delimited, nil
}

// multilineError reads an exact error message under ----, which ends at two
// consecutive blank lines or at the end of the file. It is allowed only
// when the header gave no regex.
func (p *parser) multilineError(e *errorExpect) error {
	if e.re != nil {
		return errors.New("duplicated error messages after `error` and under `----`")
	}
	var msg []string
	for p.next < len(p.lines) {
		line := p.lines[p.next]
		p.next++
		if blank(line) && (p.next >= len(p.lines) || blank(p.lines[p.next])) {
			p.next++
			break
		}
		msg = append(msg, line)
	}
	e.exact, e.multi = strings.TrimSpace(strings.Join(msg, "\n")), true
	return nil
}

func blank(line string) bool { return strings.TrimSpace(line) == "" }
