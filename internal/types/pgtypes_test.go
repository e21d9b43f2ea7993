package types

import (
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

func TestArrayText(t *testing.T) {
	for _, c := range []struct {
		in   string
		elem Type
		want string // canonical form, or the SQLSTATE of the error
	}{
		{`{}`, TInt32, `{}`},
		{` { 1 , 2,3 } `, TInt32, `{1,2,3}`},
		{`{1,NULL,null}`, TInt64, `{1,NULL,NULL}`},
		{`{a,"b c","",NULL,"NULL","x\"y","a\\b",{}`, TText, `22P02`},
		{`{a,"b c","","NULL","x\"y","a\\b"}`, TText, `{a,"b c","","NULL","x\"y","a\\b"}`},
		{`{"a",b}`, TText, `{a,b}`},
		{`{1.50,2}`, TNumeric, `{1.50,2}`},
		{`{t,false}`, TBool, `{t,f}`},
		{`{x}`, TInt32, `22P02`},
		{`{1,2`, TInt32, `22P02`},
		{`{1,,2}`, TInt32, `22P02`},
		{`1,2`, TInt32, `22P02`},
		{`{1} x`, TInt32, `22P02`},
		{`{{1},{2}}`, TInt32, `{{1},{2}}`},
		{`[1:2]={1,2}`, TInt32, `{1,2}`},
		{`[0:1]={1,2}`, TInt32, `0A000`},
		{`{16384}`, Type{ID: IDOid}, `{16384}`},
	} {
		got, err := Parse(c.in, ArrayOf(c.elem.ID))
		if err != nil {
			got = pgerr.As(err).Code
		}
		if got != c.want {
			t.Errorf("Parse(%q, %s[]) = %v, want %s", c.in, c.elem, got, c.want)
		}
	}
}

func TestOIDTypes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want any
	}{
		{"0", int64(0)}, {"4294967295", int64(4294967295)}, {"-1", int64(4294967295)},
		{"4294967296", "22003"}, {"x", "22P02"}, {" 42 ", int64(42)},
	} {
		got, err := Parse(c.in, Type{ID: IDOid})
		if err != nil {
			got = pgerr.As(err).Code
		}
		if got != c.want {
			t.Errorf("oid %q = %v, want %v", c.in, got, c.want)
		}
	}
	for oid, name := range map[uint32]string{26: "oid", 2205: "regclass", 1009: "text[]", 1005: "smallint[]", 1028: "oid[]"} {
		ty, ok := TypeByOID(oid)
		if !ok || ty.String() != name || ty.OID() != oid {
			t.Errorf("TypeByOID(%d) = %v %v, want %s", oid, ty, ok, name)
		}
	}
	if _, err := Parse("t", Type{ID: IDRegclass}); err == nil {
		t.Error("a regclass name parsed without the catalog")
	}
}

// TestVectorTypes: int2vector and oidvector hold arrays and print as
// PostgreSQL prints them.
func TestVectorTypes(t *testing.T) {
	v := VectorOf(IDInt16)
	if v.String() != "int2vector" || v.OID() != 22 || v.InternalName() != "int2vector" {
		t.Errorf("int2vector: %s %d %s", v, v.OID(), v.InternalName())
	}
	if got, ok := TypeByOID(30); !ok || got != VectorOf(IDOid) {
		t.Errorf("TypeByOID(30) = %v, %v", got, ok)
	}
	for _, in := range []string{"1 2", " 1  2 ", "{1,2}"} {
		d, err := Parse(in, v)
		if err != nil || d != "{1,2}" || Format(d, v) != "1 2" {
			t.Errorf("Parse(%q) = %v, %v; Format = %q", in, d, err, Format(d, v))
		}
	}
	if _, err := Parse("1 x", v); err == nil || pgerr.As(err).Code != "22P02" {
		t.Errorf("Parse(1 x): %v", err)
	}
}
