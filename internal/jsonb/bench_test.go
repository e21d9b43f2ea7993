package jsonb

import (
	"strings"
	"testing"
)

var benchDoc = `{"id": 12345, "name": "streamdb", "tags": ["a", "b", "c"], "price": 19.99, "active": true, ` +
	`"owner": {"name": "Ann", "email": "ann@example.com", "roles": ["admin", "dev"]}, "note": null, ` +
	`"events": [{"t": 1, "kind": "click"}, {"t": 2, "kind": "view"}, {"t": 3, "kind": "buy", "amount": -4.50}]}`

func BenchmarkParseCanonical(b *testing.B) {
	s := mustParse(b, benchDoc).String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseUnsorted(b *testing.B) {
	s := strings.ReplaceAll(`{"z": 1, "y": [1e2, "x\n\u00e9"], "x": {"b": 1, "a": 2, "b": 3}}`, " ", "\n ")
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateJSON(b *testing.B) {
	b.SetBytes(int64(len(benchDoc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateJSON(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	v := mustParse(b, benchDoc)
	b.ReportAllocs()
	for b.Loop() {
		_ = v.String()
	}
}

func BenchmarkCompare(b *testing.B) {
	x := mustParse(b, benchDoc)
	y := mustParse(b, strings.Replace(benchDoc, "-4.50", "-4.5", 1))
	b.ReportAllocs()
	for b.Loop() {
		if Compare(x, y) != 0 {
			b.Fatal("not equal")
		}
	}
}

func BenchmarkField(b *testing.B) {
	v := mustParse(b, benchDoc)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := v.Path([]string{"events", "2", "amount"}); !ok {
			b.Fatal("missing")
		}
	}
}
