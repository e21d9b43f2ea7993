package storage

import (
	"bytes"
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/internal/types"
)

// allTypes lists one type of each key/value encoding.
var allTypes = []types.Type{
	types.TBool, types.TInt16, types.TInt32, types.TInt64, types.TFloat32,
	types.TFloat64, types.TNumeric, types.TText, types.TVarchar, types.TDate,
	types.TTimestamp, types.TTimestampTZ, types.TInterval,
	types.TUUID, types.TTime, {ID: types.IDBpchar, Width: 3}, types.TBpchar, types.TTimeTZ,
	types.TInet, types.TCidr,
}

// source yields pseudo-random choices, from a PRNG or from fuzz bytes.
type source interface {
	intn(n int) int
	u64() uint64
}

type rngSource struct{ r *rand.Rand }

func (s rngSource) intn(n int) int { return s.r.IntN(n) }
func (s rngSource) u64() uint64    { return s.r.Uint64() }

func newRNG(seed uint64) rngSource { return rngSource{rand.New(rand.NewPCG(seed, seed^0x9e37))} }

// byteSource reads choices from fuzz input, then zeros.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSource) intn(n int) int { return int(s.next()) % n }

func (s *byteSource) u64() uint64 {
	var u uint64
	for range 8 {
		u = u<<8 | uint64(s.next())
	}
	return u
}

// genDatum returns a value of t biased to edge cases and ties; nil (NULL)
// one time in ten.
func genDatum(s source, t types.Type) types.Datum {
	if s.intn(10) == 0 {
		return nil
	}
	switch t.ID {
	case types.IDBool:
		return s.intn(2) == 1
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return genInt(s)
	case types.IDFloat32, types.IDFloat64:
		return genFloat(s)
	case types.IDNumeric:
		return genDecimal(s)
	case types.IDText, types.IDVarchar:
		return genString(s)
	case types.IDDate:
		return types.Date(int32(genInt(s)))
	case types.IDTimestamp, types.IDTimestampTZ:
		return types.Timestamp(genInt(s))
	case types.IDInterval:
		return genInterval(s)
	case types.IDUUID:
		return genUUID(s)
	case types.IDTime:
		return genTime(s)
	case types.IDBpchar:
		return genBpchar(s, t)
	case types.IDInet, types.IDCidr:
		return genInet(s, t.ID == types.IDCidr)
	case types.IDTimeTZ:
		zones := []int32{0, -7200, 3600, 57599, -57599, 1800}
		return types.PackTimeTZ(genTime(s)%types.MicrosPerDay, zones[s.intn(len(zones))])
	}
	return nil
}

// genInet returns an IPv4 or IPv6 address with a netmask, its host bits
// cleared for a cidr; addresses share prefixes often.
func genInet(s source, cidr bool) string {
	n := 4
	if s.intn(3) == 0 {
		n = 16
	}
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = []byte{0, 10, 0xff, byte(s.u64())}[s.intn(4)]
	}
	addr, _ := netip.AddrFromSlice(raw)
	bits := []int{0, 8, 9, 16, 24, 8 * n, s.intn(8*n + 1)}[s.intn(7)]
	if cidr {
		p, _ := addr.Prefix(bits)
		addr = p.Addr()
	}
	return types.MakeInet(addr, bits)
}

// genTime returns a time of day, often at or near an end of the day.
func genTime(s source) int64 {
	return []int64{0, 1, types.MicrosPerDay - 1, types.MicrosPerDay, 12 * types.MicrosPerHour}[s.intn(5)] + int64(s.intn(1000))*int64(s.intn(2))
}

// genUUID returns 16 bytes, often with a high bit set (uuids order
// unsigned) or a zero byte (which string keys escape).
func genUUID(s source) string {
	var b [16]byte
	for i := range b {
		switch s.intn(4) {
		case 0:
			b[i] = 0
		case 1:
			b[i] = 0xff
		default:
			b[i] = byte(s.u64())
		}
	}
	return string(b[:])
}

// genBpchar returns a character value of type t: short strings of a few
// letters and blanks, padded to t's width when it has one.
func genBpchar(s source, t types.Type) string {
	const alphabet = "  ab\x01"
	var sb strings.Builder
	for range s.intn(5) {
		sb.WriteByte(alphabet[s.intn(len(alphabet))])
	}
	v, _ := types.CheckBpchar(sb.String(), t, true)
	return v
}

func genInt(s source) int64 {
	switch s.intn(4) {
	case 0:
		return int64(s.intn(7)) - 3
	case 1:
		return []int64{math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, -256, 255, 256}[s.intn(7)]
	case 2:
		return int64(s.u64() >> (s.intn(64)))
	}
	return int64(s.u64())
}

func genFloat(s source) float64 {
	switch s.intn(4) {
	case 0:
		return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}[s.intn(9)]
	case 1:
		return float64(s.intn(11)-5) / 2
	}
	return math.Float64frombits(s.u64())
}

func genDecimal(s source) *apd.Decimal {
	d := new(apd.Decimal)
	switch s.intn(12) {
	case 0:
		d.Form = apd.NaN
		return d
	case 1:
		d.Form, d.Negative = apd.Infinite, s.intn(2) == 0
		return d
	case 2:
		d.Negative, d.Exponent = s.intn(2) == 0, int32(s.intn(7)-3)
		return d // zero, maybe -0, with some scale
	}
	coeff := new(big.Int).SetUint64(s.u64() >> s.intn(64))
	if s.intn(4) == 0 { // beyond 64 bits
		coeff.Mul(coeff, new(big.Int).SetUint64(s.u64()))
	}
	if coeff.Sign() == 0 {
		coeff.SetInt64(int64(s.intn(1000) + 1))
	}
	d.Coeff.SetMathBigInt(coeff)
	d.Exponent = int32(s.intn(41) - 20)
	if s.intn(20) == 0 {
		d.Exponent = []int32{math.MinInt32 + 50, math.MaxInt32 - 50}[s.intn(2)]
	}
	d.Negative = s.intn(2) == 0
	if s.intn(3) == 0 { // same value, larger scale: 12.3 -> 12.300
		k := int32(s.intn(4))
		d.Coeff.Mul(&d.Coeff, apd.NewBigInt(int64(math.Pow10(int(k)))))
		d.Exponent -= k
	}
	return d
}

func genString(s source) string {
	const alphabet = "\x00\x01\xffab"
	var sb strings.Builder
	n := s.intn(6)
	for range n {
		if s.intn(8) == 0 {
			sb.WriteByte(byte(s.u64()))
		} else {
			sb.WriteByte(alphabet[s.intn(len(alphabet))])
		}
	}
	return sb.String()
}

func genInterval(s source) types.Interval {
	if s.intn(4) == 0 {
		return types.Interval{Months: int32(s.u64()), Days: int32(s.u64()), Micros: int64(s.u64())}
	}
	return types.Interval{
		Months: int32(s.intn(5) - 2),
		Days:   int32(s.intn(5)-2) * 15,
		Micros: int64(s.intn(5)-2) * 15 * types.MicrosPerDay,
	}
}

// compareDatum is the reference SQL ordering: NULL first, floats and
// numerics with NaN last and -0 = 0, intervals by span (30-day months).
func compareDatum(t types.Type, a, b types.Datum) int {
	if a == nil || b == nil {
		return cmp.Compare(boolInt(a != nil), boolInt(b != nil))
	}
	switch t.ID {
	case types.IDBool:
		return cmp.Compare(boolInt(a.(bool)), boolInt(b.(bool)))
	case types.IDInt16, types.IDInt32, types.IDInt64:
		return cmp.Compare(a.(int64), b.(int64))
	case types.IDFloat32, types.IDFloat64:
		return compareFloat(a.(float64), b.(float64))
	case types.IDNumeric:
		return compareDecimal(a.(*apd.Decimal), b.(*apd.Decimal))
	case types.IDText, types.IDVarchar:
		return strings.Compare(a.(string), b.(string))
	case types.IDDate:
		return cmp.Compare(a.(types.Date), b.(types.Date))
	case types.IDTimestamp, types.IDTimestampTZ:
		return cmp.Compare(a.(types.Timestamp), b.(types.Timestamp))
	case types.IDInterval:
		return compareInterval(a.(types.Interval), b.(types.Interval))
	case types.IDUUID:
		return bytes.Compare([]byte(a.(string)), []byte(b.(string))) // uuid_cmp: memcmp
	case types.IDTime:
		return cmp.Compare(a.(int64), b.(int64))
	case types.IDInet, types.IDCidr:
		return networkCmp(types.SplitInet(a.(string)), types.SplitInet(b.(string)))
	case types.IDTimeTZ:
		// timetz_cmp: by the instant (time + zone), then by the zone.
		at, az := types.SplitTimeTZ(a.(int64))
		bt, bz := types.SplitTimeTZ(b.(int64))
		if c := cmp.Compare(at+int64(az)*1e6, bt+int64(bz)*1e6); c != 0 {
			return c
		}
		return cmp.Compare(az, bz)
	case types.IDBpchar:
		// bpcharcmp: without trailing blanks, then bytes (the C collation).
		return strings.Compare(strings.TrimRight(a.(string), " "), strings.TrimRight(b.(string), " "))
	}
	panic("no reference comparison for " + t.String())
}

// compareFloat orders like Postgres: NaN above everything, -0 = 0.
func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	if an || bn {
		return cmp.Compare(boolInt(an), boolInt(bn))
	}
	return cmp.Compare(a, b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func decimalClass(d *apd.Decimal) int {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return 3
	case d.Form == apd.Infinite && d.Negative:
		return 0
	case d.Form == apd.Infinite:
		return 2
	}
	return 1
}

func compareDecimal(a, b *apd.Decimal) int {
	ca, cb := decimalClass(a), decimalClass(b)
	if ca != 1 || cb != 1 {
		return cmp.Compare(ca, cb)
	}
	return a.Cmp(b)
}

func compareInterval(a, b types.Interval) int {
	span := func(v types.Interval) *big.Int {
		s := big.NewInt(int64(v.Months))
		s.Mul(s, big.NewInt(30))
		s.Add(s, big.NewInt(int64(v.Days)))
		s.Mul(s, big.NewInt(types.MicrosPerDay))
		return s.Add(s, big.NewInt(v.Micros))
	}
	return span(a).Cmp(span(b))
}

// sameDatum reports exact equality: float bits, decimal form, sign,
// exponent and coefficient.
func sameDatum(a, b types.Datum) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case *apd.Decimal:
		y, ok := b.(*apd.Decimal)
		return ok && x.Form == y.Form && x.Negative == y.Negative &&
			x.Exponent == y.Exponent && x.Coeff.Cmp(&y.Coeff) == 0
	}
	return a == b
}

func sameRow(a, b []types.Datum) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameDatum(a[i], b[i]) {
			return false
		}
	}
	return true
}

func mustKey(t testing.TB, typ types.Type, d types.Datum) []byte {
	t.Helper()
	k, err := AppendKey(nil, typ, d)
	if err != nil {
		t.Fatalf("AppendKey(%s, %#v): %v", typ, d, err)
	}
	return k
}

// networkCmp is PostgreSQL's network_cmp: the family, then the addresses
// over the shorter netmask, then the netmask lengths, then the addresses.
func networkCmp(a, b types.Inet) int {
	if a.Addr.Is4() != b.Addr.Is4() {
		return cmp.Compare(a.Addr.BitLen(), b.Addr.BitLen())
	}
	pa, _ := a.Addr.Prefix(min(a.Bits, b.Bits))
	pb, _ := b.Addr.Prefix(min(a.Bits, b.Bits))
	if c := pa.Addr().Compare(pb.Addr()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Bits, b.Bits); c != 0 {
		return c
	}
	return a.Addr.Compare(b.Addr)
}
