package jsonb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/big"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestSortKeyFormat pins the stored sort key format: these bytes are in
// stored tables and must never change.
func TestSortKeyFormat(t *testing.T) {
	const raw = "10 00000001 00 " // the raw scalar pseudo-array
	for _, c := range []struct {
		v   Value
		key string // hexadecimal, spaces ignored
	}{
		{NullValue(), raw + "00"},
		{FromBool(false), raw + "03 00"},
		{FromBool(true), raw + "03 01"},
		{FromString(""), raw + "01 0001"},
		{FromString("a"), raw + "01 61 0001"},
		{FromString("a\x00b\x00"), raw + "01 61 00ff 62 00ff 0001"},
		{FromString("é"), raw + "01 c3a9 0001"},
		{mustParse(t, "0"), raw + "02 01"},
		{mustParse(t, "-0.00"), raw + "02 01"},
		{mustParse(t, "1"), raw + "02 02 80000001 31 00"},
		{mustParse(t, "1.0"), raw + "02 02 80000001 31 00"},
		{mustParse(t, "1.50"), raw + "02 02 80000001 3135 00"},
		{mustParse(t, "-1.5"), raw + "02 00 7ffffffe ceca ff"},
		{mustParse(t, "100"), raw + "02 02 80000003 31 00"},
		{mustParse(t, "102.30"), raw + "02 02 80000003 313032 33 00"},
		{mustParse(t, "0.05"), raw + "02 02 7fffffff 35 00"},
		{mustParse(t, "-0.05"), raw + "02 00 80000000 ca ff"},
		{mustParse(t, "1e20"), raw + "02 02 80000015 31 00"},
		{mustParse(t, "1.5e-7"), raw + "02 02 7ffffffa 3135 00"},
		{mustParse(t, "[]"), "10 00000000 01"},
		{mustParse(t, "[true]"), "10 00000001 01 03 01"},
		{mustParse(t, `[[], null, "x"]`), "10 00000003 01 10 00000000 01 00 01 78 0001"},
		{mustParse(t, "{}"), "11 00000000"},
		{mustParse(t, `{"a": null}`), "11 00000001 61 0001 00"},
		{mustParse(t, `{"b": 1, "aa": [2], "a": {}}`),
			"11 00000003 61 0001 11 00000000 62 0001 02 02 80000001 31 00 6161 0001 10 00000001 01 02 02 80000001 32 00"},
	} {
		want, err := hex.DecodeString(strings.ReplaceAll(c.key, " ", ""))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.v.AppendSortKey([]byte("pre")); !bytes.Equal(got, append([]byte("pre"), want...)) {
			t.Errorf("AppendSortKey(%s) = % x, want pre + % x", c.v, got, want)
		}
		v, rest, err := DecodeSortKey(want)
		if err != nil || len(rest) != 0 || !Equal(v, c.v) {
			t.Errorf("DecodeSortKey(% x) = %s, % x, %v; want %s", want, v, rest, err, c.v)
		}
	}
}

// sortKeyTestValues returns the values of the PostgreSQL-checked test
// tables (every input and output text that Parse accepts, and the numbers
// of the numeric tables), random values, and values at the limits, without
// duplicate texts.
func sortKeyTestValues(t testing.TB) []Value {
	var vals []Value
	seen := map[string]bool{}
	add := func(v Value) {
		s := v.String() + "\x00" + string(v.AppendSortKey(nil))
		if !seen[s] {
			seen[s] = true
			vals = append(vals, v)
		}
	}
	addText := func(s string) {
		if v, err := Parse(s); err == nil {
			add(v)
		}
	}
	addResult := func(r result) {
		if r.err == nil && !r.null && r.hashLen == 0 {
			addText(r.out)
		}
	}
	for _, c := range pgParseCases {
		addText(c.in)
	}
	for _, c := range pgRandomParseCases {
		addText(c.in)
	}
	for _, cs := range [][]getCase{pgFieldCases, pgElemCases, pgPathCases} {
		for _, c := range cs {
			addText(c.in)
			addResult(c.want)
			addResult(c.wantText)
		}
	}
	for _, cs := range [][]containsCase{pgContainsCases, pgRandomContainsCases} {
		for _, c := range cs {
			addText(c.a)
			addText(c.b)
		}
	}
	for _, cs := range [][]existsCase{pgExistsCases, pgExistsAnyAllCases} {
		for _, c := range cs {
			addText(c.in)
		}
	}
	for _, c := range pgConcatCases {
		addText(c.a)
		addText(c.b)
		addResult(c.want)
	}
	for _, cs := range [][]editCase{pgDeleteKeyCases, pgDeleteKeysCases, pgDeleteIndexCases, pgDeletePathCases, pgSetCases, pgInsertCases} {
		for _, c := range cs {
			addText(c.in)
			addText(c.nv)
			addResult(c.want)
		}
	}
	for _, c := range pgFuncCases {
		addText(c.in)
		addResult(c.want)
	}
	for _, cs := range [][]orderCase{pgOrderCases, pgRandomOrderCases} {
		for _, c := range cs {
			addText(c.in)
		}
	}
	for _, c := range pgRandomOpCases {
		addText(c.a)
		addText(c.b)
		addResult(c.want)
	}
	for _, cs := range [][]numCase{pgNumericCases, pgFloatCases} {
		for _, c := range cs {
			if v, err := FromNumberText(c.in); err == nil {
				add(v)
			}
			if d, _, err := apd.NewFromString(c.in); err == nil {
				add(FromNumber(d))
			}
		}
	}
	r := rand.New(rand.NewSource(3))
	for range 20000 {
		add(randValue(r, 0))
	}
	for _, s := range []string{
		"1e131071", "-1e131071", "9.99e131071", "1e-16383", "-1e-16383",
		"1" + strings.Repeat("0", 131071) + "." + strings.Repeat("0", 16382) + "1",
		"0." + strings.Repeat("123456789", 1820) + "123",
		"-0." + strings.Repeat("0", 16383), "1.5e-7", "1e20", "-0", "123.4560",
		nest("[", "]", MaxDepth), strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth),
		`{"": "", "\u0001": [], "a\u0002": 0}`,
	} {
		if v, err := Parse(s); err != nil {
			t.Fatalf("Parse of a limit value: %v", err)
		} else {
			add(v)
		}
	}
	for _, s := range []string{"\x00", "a\x00", "\x00\x00b", "\xff\xfe", "a\x00\xff\x01"} {
		add(FromString(s))
		add(NewObject([]string{s, "a"}, []Value{FromString(s), NullValue()}))
	}
	return vals
}

// shortest is the text a number's key decodes to: its canonical text
// without trailing fraction zeros (nor a point left bare, nor a minus
// left on zero). It also checks with math/big that the two are equal.
func shortest(t testing.TB, s string) string {
	r := s
	if strings.IndexByte(r, '.') >= 0 {
		r = strings.TrimSuffix(strings.TrimRight(r, "0"), ".")
	}
	if r == "-0" {
		r = "0"
	}
	var a, b big.Rat
	if _, ok := a.SetString(s); !ok {
		t.Fatalf("number %q", s)
	}
	if _, ok := b.SetString(r); !ok || a.Cmp(&b) != 0 {
		t.Fatalf("number %q: %q is not equal", s, r)
	}
	return r
}

// checkShortest reports whether dec is orig with every number in its
// shortest form.
func checkShortest(t testing.TB, orig, dec Value) bool {
	if orig.kind != dec.kind {
		return false
	}
	switch orig.kind {
	case Number:
		return dec.s == shortest(t, orig.s)
	case Array, Object:
		if len(orig.c.vals) != len(dec.c.vals) || !slices.Equal(orig.c.keys, dec.c.keys) {
			return false
		}
		for i := range orig.c.vals {
			if !checkShortest(t, orig.c.vals[i], dec.c.vals[i]) {
				return false
			}
		}
	}
	return true
}

func isCorrupt(err error) bool {
	var pe *pgerr.Error
	return errors.As(err, &pe) && pe.Code == dataCorrupted
}

// TestDecodeSortKey checks on every test value that its key decodes to an
// equal value with numbers in shortest form and the same key, with or
// without bytes after it, and that every truncated key is an error.
func TestDecodeSortKey(t *testing.T) {
	vals := sortKeyTestValues(t)
	suffixes := [][]byte{{0}, {1}, {0xff}, {0, 1}, {0x10, 0, 0, 0}, []byte("\x01tail\x00\x01"), mustParse(t, "[1]").AppendSortKey(nil)}
	truncations := 0
	for i, v := range vals {
		key := v.AppendSortKey(nil)
		d, rest, err := DecodeSortKey(key)
		if err != nil || len(rest) != 0 {
			t.Fatalf("DecodeSortKey(key of %.200s) = rest % x, %v", v, rest, err)
		}
		if !Equal(d, v) || Compare(d, v) != 0 || !bytes.Equal(d.AppendSortKey(nil), key) {
			t.Fatalf("key of %.200s decodes to %.200s", v, d)
		}
		if !checkShortest(t, v, d) {
			t.Fatalf("key of %.200s decodes to %.200s, not in shortest form", v, d)
		}
		if s := d.String(); !strings.Contains(s, `\u0000`) {
			if p, err := Parse(s); err != nil || !Equal(p, d) {
				t.Fatalf("decoded %.200s does not parse back: %v", s, err)
			}
		}

		suffix := suffixes[i%len(suffixes)]
		d, rest, err = DecodeSortKey(append(slices.Clip(key), suffix...))
		if err != nil || !bytes.Equal(rest, suffix) || !Equal(d, v) {
			t.Fatalf("DecodeSortKey(key of %.200s + % x) = %.200s, rest % x, %v", v, suffix, d, rest, err)
		}

		// Every proper prefix is an error: a key is never a prefix of
		// another (and keys of long values are cut at a sample of places).
		cuts := make([]int, 0, len(key))
		if len(key) <= 600 {
			for n := range len(key) {
				cuts = append(cuts, n)
			}
		} else {
			for n := range 200 {
				cuts = append(cuts, n, len(key)-1-n, rand.Intn(len(key)))
			}
		}
		for _, n := range cuts {
			truncations++
			if _, _, err := DecodeSortKey(key[:n]); !isCorrupt(err) {
				t.Fatalf("DecodeSortKey of %d of the %d bytes of the key of %.200s: %v, want XX001", n, len(key), v, err)
			}
		}
	}
	t.Logf("%d values round-trip, %d truncated keys refused", len(vals), truncations)
}

// TestDecodeSortKeyShortest checks the forms numbers decode to.
func TestDecodeSortKeyShortest(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1", "1"},
		{"1.0", "1"},
		{"1.50", "1.5"},
		{"-1.50", "-1.5"},
		{"-0", "0"},
		{"-0.000", "0"},
		{"0.000", "0"},
		{"100", "100"},
		{"100.00", "100"},
		{"1e20", "100000000000000000000"},
		{"1.5e-7", "0.00000015"},
		{"-1.5E-7", "-0.00000015"},
		{"123.4560", "123.456"},
		{"0.10", "0.1"},
		{"10.01", "10.01"},
		{"1e-16383", "0." + strings.Repeat("0", 16382) + "1"},
		{"1e131071", "1" + strings.Repeat("0", 131071)},
		{`[1.0, {"a": 2.50, "b": [-0.0, 3e2]}, "1.0"]`, `[1, {"a": 2.5, "b": [0, 300]}, "1.0"]`},
	} {
		v := mustParse(t, c.in)
		d, rest, err := DecodeSortKey(v.AppendSortKey(nil))
		if err != nil || len(rest) != 0 || d.String() != c.want {
			t.Errorf("the key of %s decodes to %s, % x, %v; want %s", c.in, d, rest, err, c.want)
		}
	}
}

// TestSortKeyPrefixFree checks on every test value that no key is a
// proper prefix of another: sorted, a key that is a prefix of others is
// a prefix of the next one.
func TestSortKeyPrefixFree(t *testing.T) {
	vals := sortKeyTestValues(t)
	keys := make([][]byte, len(vals))
	for i, v := range vals {
		keys[i] = v.AppendSortKey(nil)
	}
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	for i := 0; i+1 < len(keys); i++ {
		if bytes.HasPrefix(keys[i+1], keys[i]) {
			t.Fatalf("key % .100x is a prefix of % .100x", keys[i], keys[i+1])
		}
	}
	t.Logf("%d distinct keys", len(keys))
}

// TestSortKeyConcat checks that keys concatenated with other keys, as the
// columns of a row key are, order as the tuples do: by the first value,
// then the second; and that what follows a key only counts when the keys
// are equal.
func TestSortKeyConcat(t *testing.T) {
	var pool []Value
	for _, cs := range [][]orderCase{pgOrderCases, pgRandomOrderCases} {
		for _, c := range cs {
			pool = append(pool, mustParse(t, c.in))
		}
	}
	r := rand.New(rand.NewSource(4))
	for range 100 {
		v := randValue(r, 2)
		pool = append(pool, v, mustParse(t, strings.ReplaceAll(v.String(), ".0", ".00")))
	}
	keys := make([][]byte, len(pool))
	for i, v := range pool {
		keys[i] = v.AppendSortKey(nil)
	}
	concat := func(a, b []byte) []byte { return append(slices.Clip(a), b...) }
	junk := func() []byte {
		b := make([]byte, r.Intn(4))
		for i := range b {
			b[i] = []byte{0, 1, 2, 0x10, 0x11, 0xfe, 0xff}[r.Intn(7)]
		}
		return b
	}
	n := 0
	for i, a1 := range pool {
		for j, b1 := range pool {
			c1 := Compare(a1, b1)
			for range 2 {
				k, l := r.Intn(len(pool)), r.Intn(len(pool))
				if r.Intn(3) == 0 {
					l = k
				}
				want := c1
				if want == 0 {
					want = Compare(pool[k], pool[l])
				}
				if got := bytes.Compare(concat(keys[i], keys[k]), concat(keys[j], keys[l])); got != want {
					t.Fatalf("(%s, %s) vs (%s, %s): keys compare %d, want %d", a1, pool[k], b1, pool[l], got, want)
				}
				n++
			}
			if c1 != 0 {
				if got := bytes.Compare(concat(keys[i], junk()), concat(keys[j], junk())); got != c1 {
					t.Fatalf("%s + bytes vs %s + bytes: keys compare %d, want %d", a1, b1, got, c1)
				}
				n++
			}
		}
	}
	// Every test value against its neighbours in the order (the closest
	// comparisons) and a random one, followed by random test values.
	all := sortKeyTestValues(t)
	slices.SortStableFunc(all, Compare)
	allKeys := make([][]byte, len(all))
	for i, v := range all {
		allKeys[i] = v.AppendSortKey(nil)
	}
	for i, a1 := range all {
		for _, j := range []int{i, max(i-1, 0), min(i+1, len(all)-1), min(i+2, len(all)-1), r.Intn(len(all))} {
			k, l := r.Intn(len(all)), r.Intn(len(all))
			want := Compare(a1, all[j])
			if want == 0 {
				want = Compare(all[k], all[l])
			}
			if got := bytes.Compare(concat(allKeys[i], allKeys[k]), concat(allKeys[j], allKeys[l])); got != want {
				t.Fatalf("(%.100s, %.100s) vs (%.100s, %.100s): keys compare %d, want %d", a1, all[k], all[j], all[l], got, want)
			}
			n++
		}
	}

	// Three values in a row decode back one after the other.
	for range 2000 {
		a, b, c := pool[r.Intn(len(pool))], pool[r.Intn(len(pool))], pool[r.Intn(len(pool))]
		buf := c.AppendSortKey(b.AppendSortKey(a.AppendSortKey(nil)))
		for _, want := range []Value{a, b, c} {
			v, rest, err := DecodeSortKey(buf)
			if err != nil || !Equal(v, want) {
				t.Fatalf("decoding %s from a row: %s, %v", want, v, err)
			}
			buf = rest
		}
		if len(buf) != 0 {
			t.Fatalf("% x left after a row of three", buf)
		}
	}
	t.Logf("%d concatenated pairs compared", n)
}

// key builds a key from hexadecimal pieces.
func key(t testing.TB, pieces ...string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(strings.Join(pieces, ""), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeSortKeyErrors checks that what AppendSortKey does not write
// is refused.
func TestDecodeSortKeyErrors(t *testing.T) {
	const raw = "10 00000001 00 "
	for _, c := range []struct{ name, key string }{
		{"empty", ""},
		{"scalar tag at the top", "00"},
		{"string tag at the top", "01 61 0001"},
		{"bad top tag", "12"},
		{"bad tag", raw + "04"},
		{"bad nested tag", "10 00000001 01 20"},
		{"raw scalar of count 2", "10 00000002 00 00 00"},
		{"raw scalar of count 0", "10 00000000 00"},
		{"raw scalar holding an array", raw + "10 00000000 01"},
		{"raw scalar holding an object", raw + "11 00000000"},
		{"bad array flag", "10 00000000 02"},
		{"raw scalar flag nested", "10 00000001 01 10 00000001 00 00"},
		{"bad boolean", raw + "03 02"},
		{"bad string escape", raw + "01 61 0002"},
		{"unterminated string", raw + "01 61 00ff"},
		{"count beyond the bytes", "10 00000005 01 00 00"},
		{"huge count", "10 ffffffff 01 00"},
		{"huge object count", "11 ffffffff 00 01 00"},
		{"keys out of order", "11 00000002 62 0001 00 61 0001 00"},
		{"longer key first", "11 00000002 6161 0001 00 62 0001 00"},
		{"duplicate keys", "11 00000002 61 0001 00 61 0001 00"},
		{"bad number class", raw + "02 03"},
		{"negative class byte ff", raw + "02 ff 7ffffffe ceca ff"},
		{"no digits", raw + "02 02 80000001 00"},
		{"no digits, negative", raw + "02 00 7ffffffe ff"},
		{"leading zero digit", raw + "02 02 80000002 3031 00"},
		{"trailing zero digit", raw + "02 02 80000002 3130 00"},
		{"trailing zero digit, negative", raw + "02 00 7ffffffd cecf ff"},
		{"non-digit", raw + "02 02 80000001 3a 00"},
		{"positive number with a negative's terminator", raw + "02 02 80000001 31 ff"},
		{"negative number with a positive's terminator", raw + "02 00 7ffffffe ce 00"},
		{"unterminated number", raw + "02 02 80000001 3131"},
		{"exponent beyond numeric", raw + "02 02 80020001 31 00"},          // 10^131072
		{"exponent below numeric", raw + "02 02 7fffc000 31 00"},           // 10^-16385
		{"fraction digits beyond numeric", raw + "02 02 7fffc001 31 00"},   // 10^-16384
		{"fraction digits beyond numeric", raw + "02 02 7fffc002 3131 00"}, // 1.1 × 10^-16383
		{"exponent of int32's minimum", raw + "02 02 00000000 31 00"},
		{"exponent of int32's maximum", raw + "02 02 ffffffff 31 00"},
		{"negative exponent of int32's maximum", raw + "02 00 00000000 ce ff"},
		{"truncated exponent", raw + "02 02 8000"},
	} {
		_, _, err := DecodeSortKey(key(t, c.key))
		if !isCorrupt(err) {
			t.Errorf("%s: DecodeSortKey(%s) = %v, want XX001", c.name, c.key, err)
		}
	}
	// The limits themselves are accepted.
	for _, k := range []string{
		raw + "02 02 80020000 31 00", // 10^131071
		raw + "02 02 7fffc002 31 00", // 10^-16383
		raw + "02 00 7ffdffff ce ff", // -10^131071
	} {
		if v, rest, err := DecodeSortKey(key(t, k)); err != nil || len(rest) != 0 || !bytes.Equal(v.AppendSortKey(nil), key(t, k)) {
			t.Errorf("DecodeSortKey(%s) = %.50s, % x, %v", k, v, rest, err)
		}
	}
}

// TestDecodeSortKeyDepth checks the nesting limit.
func TestDecodeSortKeyDepth(t *testing.T) {
	open := key(t, "10 00000001 01")
	deep := func(n int) []byte {
		b := bytes.Repeat(open, n-1)
		return append(b, key(t, "10 00000000 01")...)
	}
	if v, rest, err := DecodeSortKey(deep(MaxDepth)); err != nil || len(rest) != 0 || v.String() != nest("[", "]", MaxDepth) {
		t.Errorf("depth %d: %v", MaxDepth, err)
	}
	if _, _, err := DecodeSortKey(deep(MaxDepth + 1)); !isCorrupt(err) {
		t.Errorf("depth %d: got %v, want XX001", MaxDepth+1, err)
	}
	// A count claiming more than is there at every level allocates
	// nothing for it.
	b := bytes.Repeat(key(t, "10 00100000 01"), MaxDepth)
	if _, _, err := DecodeSortKey(b); !isCorrupt(err) {
		t.Errorf("counts beyond the bytes: got %v, want XX001", err)
	}
}

// checkDecoded checks what DecodeSortKey did with buf: an XX001 error, or
// a value whose key is exactly the bytes it consumed.
func checkDecoded(t *testing.T, buf []byte) bool {
	v, rest, err := DecodeSortKey(buf)
	if err != nil {
		if !isCorrupt(err) {
			t.Fatalf("DecodeSortKey(% .100x): %v is not XX001", buf, err)
		}
		return false
	}
	n := len(buf) - len(rest)
	if n <= 0 || !bytes.Equal(rest, buf[n:]) {
		t.Fatalf("DecodeSortKey(% .100x): rest % .100x is not a suffix", buf, rest)
	}
	if k := v.AppendSortKey(nil); !bytes.Equal(k, buf[:n]) {
		t.Fatalf("DecodeSortKey(% .100x) = %.100s, whose key is % .100x", buf, v, k)
	}
	return true
}

// TestDecodeSortKeyMutations decodes keys with random bytes changed,
// inserted or removed: an error or a value that is exactly the key.
func TestDecodeSortKeyMutations(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	decoded, n := 0, 0
	for range 20000 {
		k := randValue(r, 0).AppendSortKey(nil)
		for range 1 + r.Intn(3) {
			i := r.Intn(len(k) + 1)
			b := []byte{0, 1, 2, 3, 0x10, 0x11, 0x30, 0x39, 0x80, 0xfe, 0xff, byte(r.Intn(256))}[r.Intn(12)]
			switch r.Intn(3) {
			case 0:
				if i < len(k) {
					k[i] = b
				}
			case 1:
				k = slices.Insert(k, i, b)
			default:
				if i < len(k) {
					k = slices.Delete(k, i, i+1)
				}
			}
		}
		n++
		if checkDecoded(t, k) {
			decoded++
		}
	}
	t.Logf("%d mutated keys, %d still decode", n, decoded)
}

// FuzzDecodeSortKey checks that DecodeSortKey never panics, fails only
// with XX001, and decodes only exact keys.
func FuzzDecodeSortKey(f *testing.F) {
	for _, c := range pgOrderCases {
		v, err := Parse(c.in)
		if err != nil {
			f.Fatal(err)
		}
		k := v.AppendSortKey(nil)
		f.Add(k)
		f.Add(k[:len(k)/2])
		f.Add(append(k, 0x01, 0x02))
	}
	f.Add([]byte{})
	f.Add([]byte{0x10, 0, 0, 0, 1, 0, 2, 0, 0x7f, 0xff, 0xff, 0xfe, 0xce, 0xff})
	f.Add([]byte{0x11, 0, 0, 0, 1, 0, 0xff, 0, 1, 1, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecoded(t, b)
	})
}

func BenchmarkDecodeSortKey(b *testing.B) {
	k := mustParse(b, benchDoc).AppendSortKey(nil)
	b.SetBytes(int64(len(k)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeSortKey(k); err != nil {
			b.Fatal(err)
		}
	}
}
