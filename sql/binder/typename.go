package binder

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// parseTypeName maps a Postgres type name as written ("varchar(20)",
// "numeric(10,2)", "timestamp(3) with time zone", "int") to a Type.
func parseTypeName(name string) (types.Type, error) {
	if elem, ok := cutArraySuffixes(name); ok {
		// An array of a storable type: int[], text[][] (one type, as in
		// Postgres, whatever the dimensions).
		t, err := parseTypeName(elem)
		if err != nil {
			return types.Type{}, err
		}
		if t.Width > 0 || t.Precision > 0 {
			return types.Type{}, pgerr.New(pgerr.FeatureNotSupported, "type modifiers on array elements are not supported")
		}
		return types.ArrayOf(t.ID), nil
	}
	base, mods, err := splitTypeMods(name)
	if err != nil {
		return types.Type{}, err
	}
	id, ok := types.ByName(base)
	if !ok {
		return types.Type{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", base)
	}
	return applyTypeMods(types.Type{ID: id}, base, mods)
}

// parseCastType is parseTypeName for the target of a cast, which may also
// be one of the types that exist in expressions only (oid, the reg*
// types) or a one-dimensional array ("int2[]").
func parseCastType(name string) (types.Type, error) {
	base, mods, err := splitTypeMods(name)
	if err != nil {
		return types.Type{}, err
	}
	elem, isArray := cutArraySuffixes(base)
	id, ok := types.ExprTypeByName(elem)
	if !ok {
		return types.Type{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", elem)
	}
	if isArray {
		return types.ArrayOf(id), nil
	}
	return applyTypeMods(types.Type{ID: id}, base, mods)
}

// cutArraySuffixes returns name without its trailing "[]"s (the front end
// drops array bounds: int[3][3] comes as int[][]); ok is false when it has
// none.
func cutArraySuffixes(name string) (string, bool) {
	elem := strings.TrimSpace(name)
	ok := false
	for strings.HasSuffix(elem, "[]") {
		elem, ok = strings.TrimSpace(strings.TrimSuffix(elem, "[]")), true
	}
	return elem, ok
}

// typeBase returns the name without modifiers, for error positions.
func typeBase(name string) string {
	base, _, _ := splitTypeMods(name)
	if i := strings.IndexByte(base, ' '); i > 0 {
		return base[:i]
	}
	return base
}

// splitTypeMods splits "timestamp(3) with time zone" into "timestamp with
// time zone" and ["3"].
func splitTypeMods(name string) (string, []string, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	open := strings.IndexByte(name, '(')
	if open < 0 {
		return strings.Join(strings.Fields(name), " "), nil, nil
	}
	end := strings.IndexByte(name[open:], ')')
	if end < 0 {
		return "", nil, pgerr.New(pgerr.SyntaxError, "syntax error in type name %q", name)
	}
	inner := name[open+1 : open+end]
	base := name[:open] + " " + name[open+end+1:]
	var mods []string
	for _, m := range strings.Split(inner, ",") {
		mods = append(mods, strings.TrimSpace(m))
	}
	return strings.Join(strings.Fields(base), " "), mods, nil
}

// applyTypeMods applies varchar(n), character(n), numeric(p[,s]) and
// time(p); other types ignore a precision modifier (timestamp(3),
// interval(6)). char and character without a length are character(1),
// as in Postgres; bpchar is unlimited.
func applyTypeMods(t types.Type, base string, mods []string) (types.Type, error) {
	if len(mods) == 0 {
		if t.ID == types.IDBpchar && base != "bpchar" {
			t.Width = 1
		}
		return t, nil
	}
	nums := make([]int, len(mods))
	for i, m := range mods {
		n, err := strconv.Atoi(m)
		if err != nil {
			return t, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers")
		}
		nums[i] = n
	}
	switch t.ID {
	case types.IDVarchar:
		if len(nums) != 1 || nums[0] < 1 {
			return t, pgerr.New(pgerr.InvalidParameterValue, "length for type varchar must be at least 1")
		}
		t.Width = nums[0]
	case types.IDBpchar:
		if len(nums) != 1 || nums[0] < 1 {
			return t, pgerr.New(pgerr.InvalidParameterValue, "length for type char must be at least 1")
		}
		t.Width = nums[0]
	case types.IDNumeric:
		return numericMods(t, nums)
	case types.IDTime, types.IDTimeTZ:
		if len(nums) != 1 || nums[0] < 0 {
			return t, pgerr.New(pgerr.InvalidParameterValue, "TIME(%d) precision must not be negative", nums[0])
		}
		t.Precision = min(nums[0], 6) + 1 // Postgres reduces a larger precision to 6, with a warning
	}
	return t, nil
}

func numericMods(t types.Type, nums []int) (types.Type, error) {
	if len(nums) > 2 || nums[0] < 1 || nums[0] > 1000 {
		return t, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", nums[0])
	}
	t.Precision = nums[0]
	if len(nums) == 2 {
		if nums[1] < 0 || nums[1] > nums[0] {
			return t, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between 0 and precision %d", nums[1], nums[0])
		}
		t.Scale = nums[1]
	}
	return t, nil
}

// internalTypeName is the name Postgres gives a cast's output column
// (SELECT 1::int is named int4).
func internalTypeName(t types.Type) string {
	switch t.ID {
	case types.IDBool:
		return "bool"
	case types.IDInt16:
		return "int2"
	case types.IDInt32:
		return "int4"
	case types.IDInt64:
		return "int8"
	case types.IDFloat32:
		return "float4"
	case types.IDFloat64:
		return "float8"
	case types.IDVarchar:
		return "varchar"
	case types.IDTimestamp:
		return "timestamp"
	case types.IDTimestampTZ:
		return "timestamptz"
	case types.IDTime:
		return "time"
	case types.IDTimeTZ:
		return "timetz"
	case types.IDBpchar:
		return "bpchar"
	}
	return t.String()
}
