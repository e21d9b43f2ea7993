package expr

import (
	"strings"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// JSONToRecordFuncs are jsonb_to_record, jsonb_to_recordset and their
// json forms: functions returning record, whose columns the call's
// column definition list gives (AS t(a int, b text)).
var JSONToRecordFuncs = map[string]bool{
	"jsonb_to_record": true, "jsonb_to_recordset": true, "json_to_record": true, "json_to_recordset": true,
}

// BindJSONToRecord binds one of JSONToRecordFuncs with the columns cols:
// each column is the object's field of its name (NULL when missing or
// JSON null), its text (a string's value, any other value's JSON) read
// as the column's type, or the value itself for a json or jsonb column,
// as PostgreSQL's populate_record does. A NULL argument is one row of
// NULLs (jsonb_to_record) or none (jsonb_to_recordset).
func BindJSONToRecord(name string, args []Expr, cols []SetCol) (*SetFunc, error) {
	in := types.TJSONB
	if name[:5] == "json_" {
		in = types.TJSON
	}
	if len(args) != 1 {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	arg, err := coerce(args[0], in)
	if err != nil {
		return nil, functionError(name, exprTypes(args), resolveNone)
	}
	conv := make([]Expr, len(cols))
	for i, c := range cols {
		if conv[i], err = Cast(NewColumn(0, types.TText, c.Name), c.Type); err != nil {
			return nil, err
		}
	}
	set := name[len(name)-3:] == "set"
	record := func(v jsonb.Value) ([]types.Datum, error) {
		row := make([]types.Datum, len(cols))
		for i, c := range cols {
			f, ok := v.Field(c.Name)
			if !ok || f.IsNull() {
				continue
			}
			text, _ := f.Text()
			switch {
			case c.Type.ID == types.IDJSONB || c.Type.ID == types.IDJSON:
				text = f.String()
			case c.Type.ID == types.IDArray && f.Kind() == jsonb.Array:
				// A JSON array fills an array column element by element
				// (PostgreSQL's populate_array), nested arrays as
				// dimensions.
				var b strings.Builder
				if err := arrayLiteral(&b, f); err != nil {
					return nil, err
				}
				text = b.String()
			}
			d, err := conv[i].Eval([]types.Datum{text})
			if err != nil {
				return nil, err
			}
			row[i] = d
		}
		return row, nil
	}
	fn := func(a []types.Datum) ([][]types.Datum, error) {
		if a[0] == nil {
			if set {
				return nil, nil
			}
			return [][]types.Datum{make([]types.Datum, len(cols))}, nil
		}
		j, err := jsonb.Parse(a[0].(string))
		if err != nil {
			return nil, err
		}
		if !set {
			switch {
			case j.Kind() == jsonb.Array:
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on an array")
			case j.IsScalar():
				return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call populate_composite on a scalar")
			}
			row, err := record(j)
			return [][]types.Datum{row}, err
		}
		if j.Kind() != jsonb.Array {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "cannot call %s on a non-array", name)
		}
		elems, err := j.Elements()
		if err != nil {
			return nil, err
		}
		rows := make([][]types.Datum, len(elems))
		for i, e := range elems {
			if e.Kind() != jsonb.Object {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "argument of %s must be an array of objects", name)
			}
			if rows[i], err = record(e); err != nil {
				return nil, err
			}
		}
		return rows, nil
	}
	return &SetFunc{Name: name, Args: []Expr{arg}, Cols: cols, Fn: fn}, nil
}

// arrayLiteral writes JSON array v as an array literal: {e1,e2,...}, an
// element a nested array's braces, JSON null NULL, a string its quoted
// value, any other value its quoted JSON text.
func arrayLiteral(b *strings.Builder, v jsonb.Value) error {
	elems, err := v.Elements()
	if err != nil {
		return err
	}
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		switch {
		case e.IsNull():
			b.WriteString("NULL")
		case e.Kind() == jsonb.Array:
			if err := arrayLiteral(b, e); err != nil {
				return err
			}
		default:
			t, _ := e.Text() // an object's (or number's) JSON text
			b.WriteByte('"')
			b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(t))
			b.WriteByte('"')
		}
	}
	b.WriteByte('}')
	return nil
}
