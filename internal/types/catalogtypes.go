package types

// CatalogType is a type of Postgres's catalog that has no values of its
// own in streamdb: a pseudo-type, which only the signatures of functions
// and operators and the transition types of aggregates use (anyarray,
// "any", trigger, internal ...), or a system type streamdb reads as
// another (name and pg_node_tree as text). pg_type lists them so that the
// signatures in pg_proc and pg_operator, pg_aggregate's transition types
// and clients' catalog queries ('trigger'::regtype) name real types.
type CatalogType struct {
	OID      uint32
	Name     string // pg_type.typname
	Display  string // as format_type prints it
	Category byte   // pg_type.typcategory
	Elem     uint32 // an array type's element type, else 0
	Array    uint32 // the type's array type, 0 for none
	// As is what streamdb reads values declared of the type as;
	// TUnknown for a pseudo-type.
	As Type
}

// catalogTypes are the CatalogTypes, by OID.
var catalogTypes = []CatalogType{
	{OID: 19, Name: "name", Display: "name", Category: 'S', Array: 1003, As: TText},
	{OID: 194, Name: "pg_node_tree", Display: "pg_node_tree", Category: 'Z', As: TText},
	{OID: 705, Name: "unknown", Display: "unknown", Category: 'X'}, // a string literal's type (pg_typeof('x'))
	{OID: 1003, Name: "_name", Display: "name[]", Category: 'A', Elem: 19, As: ArrayOf(IDText)},
	{OID: 2249, Name: "record", Display: "record", Category: 'P'},
	{OID: 2276, Name: "any", Display: `"any"`, Category: 'P'},
	{OID: 2277, Name: "anyarray", Display: "anyarray", Category: 'P'},
	{OID: 2278, Name: "void", Display: "void", Category: 'P', As: TVoid}, // pg_sleep's result
	{OID: 2279, Name: "trigger", Display: "trigger", Category: 'P'},
	{OID: 2281, Name: "internal", Display: "internal", Category: 'P'},
	{OID: 2283, Name: "anyelement", Display: "anyelement", Category: 'P'},
	{OID: 2776, Name: "anynonarray", Display: "anynonarray", Category: 'P'},
	{OID: 3838, Name: "event_trigger", Display: "event_trigger", Category: 'P'},
	{OID: 5077, Name: "anycompatible", Display: "anycompatible", Category: 'P'},
	{OID: 5078, Name: "anycompatiblearray", Display: "anycompatiblearray", Category: 'P'},
}

// CatalogTypes returns the CatalogTypes, by OID.
func CatalogTypes() []CatalogType { return catalogTypes }

// CatalogTypeByOID returns the CatalogType with the given OID.
func CatalogTypeByOID(oid uint32) (CatalogType, bool) {
	for _, t := range catalogTypes {
		if t.OID == oid {
			return t, true
		}
	}
	return CatalogType{}, false
}

// CatalogTypeByName returns the CatalogType named name, as pg_type or
// format_type spells it.
func CatalogTypeByName(name string) (CatalogType, bool) {
	for _, t := range catalogTypes {
		if t.Name == name || t.Display == name {
			return t, true
		}
	}
	return CatalogType{}, false
}
