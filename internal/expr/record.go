package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/types"
)

// There is no record type: a set-returning function that returns a
// record (jsonb_each and its kin) written in a select list gives its
// record's text instead, as PostgreSQL's record_out prints it: (a,1),
// each field quoted when it is empty or holds a quote, a backslash, a
// parenthesis, a comma or white space, a NULL field empty. Its type is
// text where PostgreSQL's is record: results print alike, but the
// fields cannot be selected ((jsonb_each(x)).key).

// recordText formats its fields, as their types' output functions print
// them, as a record's text; it
// is NULL when every field is (the row a shorter set-returning function
// pads with NULLs).
type recordText struct {
	fields []Expr
}

// RecordText builds the text of the record of fields.
func RecordText(fields []Expr) Expr {
	text := make([]Expr, len(fields))
	for i, f := range fields {
		text[i] = asText(f)
	}
	return &recordText{fields: text}
}

func (r *recordText) Type() types.Type            { return types.TText }
func (r *recordText) Children() []Expr            { return r.fields }
func (r *recordText) WithChildren(ch []Expr) Expr { return &recordText{fields: ch} }

func (r *recordText) Eval(row []types.Datum) (types.Datum, error) {
	var sb strings.Builder
	sb.WriteByte('(')
	null := true
	for i, f := range r.fields {
		v, err := f.Eval(row)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		if v != nil {
			null = false
			appendRecordField(&sb, v.(string))
		}
	}
	if null {
		return nil, nil
	}
	sb.WriteByte(')')
	return sb.String(), nil
}

func (r *recordText) String() string {
	parts := make([]string, len(r.fields))
	for i, f := range r.fields {
		parts[i] = f.String()
	}
	return "ROW(" + strings.Join(parts, ", ") + ")"
}

// appendRecordField writes one non-NULL field as record_out does.
func appendRecordField(sb *strings.Builder, s string) {
	if s != "" && !strings.ContainsAny(s, "\"\\(), \t\n\r\v\f") {
		sb.WriteString(s)
		return
	}
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			sb.WriteByte(s[i])
		}
		sb.WriteByte(s[i])
	}
	sb.WriteByte('"')
}
