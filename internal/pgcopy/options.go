package pgcopy

import (
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// Format is a COPY data format.
type Format uint8

// The COPY formats.
const (
	Text Format = iota
	CSV
	Binary
)

func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case Binary:
		return "binary"
	}
	return "text"
}

// Options are the interpreted options of one COPY statement.
type Options struct {
	Format Format
	// Header: COPY FROM skips the first line (HeaderMatch: and checks it
	// names the columns); COPY TO writes the column names first.
	Header, HeaderMatch bool
	// Delimiter separates columns (default tab, in CSV a comma).
	Delimiter byte
	// Null is the text of a NULL (default \N, in CSV an empty string).
	Null string
	// Quote and Escape are CSV's quote and escape characters (default ",
	// and Escape defaults to Quote).
	Quote, Escape byte
	// ForceQuote (COPY TO, CSV) quotes every non-NULL value of the listed
	// columns, or of all columns with ForceQuoteAll.
	ForceQuote    []string
	ForceQuoteAll bool
	// ForceNotNull (COPY FROM, CSV) reads the null string unquoted as an
	// empty string, not NULL, in the listed columns; ForceNull reads it as
	// NULL even quoted.
	ForceNotNull, ForceNull []string
	// Freeze is accepted and ignored.
	Freeze bool
	// Zone is the session time zone (not an option of the statement: the
	// caller sets it): text timestamptz values without an offset are read
	// in it, and written in it. nil is UTC.
	Zone *types.Zone
}

// Option is one option as the statement gave it (see sql.CopyOption).
type Option struct {
	Name     string
	Value    string
	HasValue bool
	Columns  []string
	Star     bool
	Pos      int
}

// ParseOptions interprets a COPY statement's options as PostgreSQL does
// (ProcessCopyOptions): from is true for COPY FROM.
func ParseOptions(opts []Option, from bool) (Options, error) {
	var o Options
	seen := map[string]bool{}
	var delim, null, quote, escape *string
	for i := range opts {
		opt := &opts[i]
		if seen[opt.Name] {
			return o, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(opt.Pos)
		}
		seen[opt.Name] = true
		var err error
		switch opt.Name {
		case "format":
			err = o.setFormat(opt)
		case "freeze":
			o.Freeze, err = boolOption(opt)
		case "header":
			err = o.setHeader(opt, from)
		case "delimiter":
			delim = &opt.Value
		case "null":
			null = &opt.Value
		case "quote":
			quote = &opt.Value
		case "escape":
			escape = &opt.Value
		case "force_quote":
			o.ForceQuote, o.ForceQuoteAll = opt.Columns, opt.Star
			err = columnListOption(opt, true)
		case "force_not_null":
			o.ForceNotNull = opt.Columns
			err = columnListOption(opt, false)
		case "force_null":
			o.ForceNull = opt.Columns
			err = columnListOption(opt, false)
		case "encoding":
			err = checkEncoding(opt)
		case "oids":
			err = pgerr.New(pgerr.FeatureNotSupported, "COPY with OIDS is not supported")
		case "default", "on_error", "log_verbosity", "reject_limit":
			err = pgerr.New(pgerr.FeatureNotSupported, "COPY option %q is not supported", opt.Name).WithPosition(opt.Pos)
		default:
			err = pgerr.New(pgerr.SyntaxError, "option %q not recognized", opt.Name).WithPosition(opt.Pos)
		}
		if err != nil {
			return o, err
		}
	}
	if err := o.setChars(delim, null, quote, escape); err != nil {
		return o, err
	}
	return o, o.check(from)
}

func (o *Options) setFormat(opt *Option) error {
	switch strings.ToLower(opt.Value) {
	case "text":
		o.Format = Text
	case "csv":
		o.Format = CSV
	case "binary":
		o.Format = Binary
	default:
		return pgerr.New(pgerr.InvalidParameterValue, "COPY format %q not recognized", opt.Value).WithPosition(opt.Pos)
	}
	return nil
}

func (o *Options) setHeader(opt *Option, from bool) error {
	if strings.EqualFold(opt.Value, "match") {
		if !from {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot use \"match\" with HEADER in COPY TO").WithPosition(opt.Pos)
		}
		o.Header, o.HeaderMatch = true, true
		return nil
	}
	var err error
	o.Header, err = boolOption(opt)
	return err
}

// boolOption reads a Boolean option; no value means true.
func boolOption(opt *Option) (bool, error) {
	if !opt.HasValue {
		return true, nil
	}
	switch strings.ToLower(opt.Value) {
	case "true", "on", "1", "yes", "t", "y":
		return true, nil
	case "false", "off", "0", "no", "f", "n":
		return false, nil
	}
	return false, pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", opt.Name).WithPosition(opt.Pos)
}

func columnListOption(opt *Option, starOK bool) error {
	if opt.Columns != nil || (opt.Star && starOK) {
		return nil
	}
	return pgerr.New(pgerr.SyntaxError, "argument to option %q must be a list of column names", opt.Name).WithPosition(opt.Pos)
}

func checkEncoding(opt *Option) error {
	switch strings.ToLower(strings.ReplaceAll(opt.Value, "-", "")) {
	case "utf8", "unicode", "sql_ascii":
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "COPY encoding %q is not supported: only UTF8 is", opt.Value)
}

// setChars fills the delimiter, null string, quote and escape, with the
// format's defaults for the ones not given.
func (o *Options) setChars(delim, null, quote, escape *string) error {
	if o.Format == Binary {
		for _, c := range []struct {
			v    *string
			name string
		}{{delim, "DELIMITER"}, {null, "NULL"}} {
			if c.v != nil {
				return pgerr.New(pgerr.SyntaxError, "cannot specify %s in BINARY mode", c.name)
			}
		}
	}
	if o.Format != CSV {
		if quote != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY quote available only in CSV mode")
		}
		if escape != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY escape available only in CSV mode")
		}
	}
	o.Delimiter, o.Null = '\t', `\N`
	if o.Format == CSV {
		o.Delimiter, o.Null, o.Quote = ',', "", '"'
	}
	if err := oneByte(delim, &o.Delimiter, "delimiter"); err != nil {
		return err
	}
	if null != nil {
		o.Null = *null
	}
	if err := oneByte(quote, &o.Quote, "quote"); err != nil {
		return err
	}
	o.Escape = o.Quote
	return oneByte(escape, &o.Escape, "escape")
}

func oneByte(v *string, dst *byte, what string) error {
	if v == nil {
		return nil
	}
	if len(*v) != 1 {
		return pgerr.New(pgerr.FeatureNotSupported, "COPY %s must be a single one-byte character", what)
	}
	*dst = (*v)[0]
	return nil
}

// check applies PostgreSQL's rules on option combinations.
func (o *Options) check(from bool) error {
	bad := func(code, msg string) error { return pgerr.New(code, "%s", msg) }
	switch {
	case o.Format == Binary && o.Header:
		return bad(pgerr.FeatureNotSupported, "cannot specify HEADER in BINARY mode")
	case o.Delimiter == '\n' || o.Delimiter == '\r':
		return bad(pgerr.InvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	case strings.ContainsAny(o.Null, "\r\n"):
		return bad(pgerr.InvalidParameterValue, "COPY null representation cannot use newline or carriage return")
	case o.Format == Text && strings.IndexByte(`\.abcdefghijklmnopqrstuvwxyz0123456789`, o.Delimiter) >= 0:
		return pgerr.New(pgerr.InvalidParameterValue, "COPY delimiter cannot be %q", string(o.Delimiter))
	case o.Format == CSV && o.Delimiter == o.Quote:
		return bad(pgerr.FeatureNotSupported, "COPY delimiter and quote must be different")
	case o.Format != Binary && strings.IndexByte(o.Null, o.Delimiter) >= 0:
		return bad(pgerr.FeatureNotSupported, "COPY delimiter must not appear in the NULL specification")
	case o.Format == CSV && strings.IndexByte(o.Null, o.Quote) >= 0:
		return bad(pgerr.FeatureNotSupported, "CSV quote character must not appear in the NULL specification")
	}
	return o.checkForce(from)
}

func (o *Options) checkForce(from bool) error {
	for _, f := range []struct {
		set    bool
		name   string
		fromOK bool
	}{
		{o.ForceQuote != nil || o.ForceQuoteAll, "force quote", false},
		{o.ForceNotNull != nil, "force not null", true},
		{o.ForceNull != nil, "force null", true},
	} {
		if !f.set {
			continue
		}
		if o.Format != CSV {
			return pgerr.New(pgerr.FeatureNotSupported, "COPY %s available only in CSV mode", f.name)
		}
		if from != f.fromOK {
			dir := "COPY TO"
			if f.fromOK {
				dir = "COPY FROM"
			}
			return pgerr.New(pgerr.FeatureNotSupported, "COPY %s only available using %s", f.name, dir)
		}
	}
	return nil
}

// ColumnFlags resolves a FORCE_* column list against the COPY's columns:
// flags[i] is true for the listed columns (all with all).
func ColumnFlags(option string, list []string, all bool, cols []string) ([]bool, error) {
	flags := make([]bool, len(cols))
	for _, name := range list {
		i := indexOf(cols, name)
		if i < 0 {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "%s column %q not referenced by COPY", option, name)
		}
		flags[i] = true
	}
	if all {
		for i := range flags {
			flags[i] = true
		}
	}
	return flags, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
