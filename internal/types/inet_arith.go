package types

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Arithmetic and bitwise operations on inet and cidr values, as
// PostgreSQL's network.c does them: on the address as a big-endian
// integer of 32 or 128 bits, keeping the netmask length.

var (
	errInetRange = pgerr.New(pgerr.NumericOutOfRange, "result is out of range")
	errBadMask   = func(bits int) error { return pgerr.New(pgerr.InvalidParameterValue, "invalid mask length: %d", bits) }
)

// addrOf is an address built from its bytes (4 or 16).
func addrOf(raw []byte) netip.Addr {
	a, _ := netip.AddrFromSlice(raw)
	return a
}

// InetAdd is inet + n (inetpl, inetmi_int8 with -n): the address plus n,
// with v's netmask; 22003 when it leaves the family's range.
func InetAdd(v Inet, n int64) (string, error) {
	raw := v.Addr.AsSlice()
	carry := int64(0)
	for i := len(raw) - 1; i >= 0; i-- {
		carry += int64(raw[i]) + n&0xff
		raw[i] = byte(carry)
		carry >>= 8
		n >>= 8 // arithmetic: a negative n leaves -1
	}
	if !(n == 0 && carry == 0 || n == -1 && carry == 1) {
		return "", errInetRange
	}
	return MakeInet(addrOf(raw), v.Bits), nil
}

// InetSub is inet - inet (inetmi): the difference of the addresses as a
// bigint; 22023 across families, 22003 when it does not fit.
func InetSub(a, b Inet) (int64, error) {
	if a.Addr.Is4() != b.Addr.Is4() {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "cannot subtract inet values of different sizes")
	}
	x, y := a.Addr.AsSlice(), b.Addr.AsSlice()
	var res int64
	carry := 1
	for i, k := len(x)-1, 0; i >= 0; i, k = i-1, k+1 {
		carry += int(x[i]) + int(^y[i])
		lo := int64(carry & 0xff)
		if k < 8 {
			res |= lo << (8 * k)
		} else if res < 0 && lo != 0xff || res >= 0 && lo != 0 {
			return 0, errInetRange
		}
		carry >>= 8
	}
	if carry == 0 && len(x) < 8 {
		res |= -1 << (8 * len(x)) // sign-extend a negative IPv4 difference
	}
	return res, nil
}

// InetBitwise is ~a (op '~', b ignored), a & b or a | b (inetnot,
// inetand, inetor): the addresses combined bit by bit, with the longer
// netmask of the two (a's for ~); 22023 across families.
func InetBitwise(op byte, a, b Inet) (string, error) {
	x := a.Addr.AsSlice()
	if op == '~' {
		for i := range x {
			x[i] = ^x[i]
		}
		return MakeInet(addrOf(x), a.Bits), nil
	}
	if a.Addr.Is4() != b.Addr.Is4() {
		name := map[byte]string{'&': "AND", '|': "OR"}[op]
		return "", pgerr.New(pgerr.InvalidParameterValue, "cannot %s inet values of different sizes", name)
	}
	y := b.Addr.AsSlice()
	for i := range x {
		if op == '&' {
			x[i] &= y[i]
		} else {
			x[i] |= y[i]
		}
	}
	return MakeInet(addrOf(x), max(a.Bits, b.Bits)), nil
}

// InetSetMasklen is set_masklen(v, bits): v with a netmask of bits (-1:
// all of the address); a cidr also drops the bits beyond it. 22023 for a
// length out of range.
func InetSetMasklen(v Inet, bits int, cidr bool) (string, error) {
	if bits == -1 {
		bits = v.MaxBits()
	}
	if bits < 0 || bits > v.MaxBits() {
		return "", errBadMask(bits)
	}
	v.Bits = bits
	if cidr {
		return MakeInet(v.Network(), bits), nil
	}
	return MakeInet(v.Addr, bits), nil
}

// InetHostmask is hostmask(v): the bits beyond the netmask set, as an
// address.
func InetHostmask(v Inet) string {
	raw := v.Addr.AsSlice()
	for i := range raw {
		raw[i] = ^maskByte(v.Bits, i)
	}
	return MakeInet(addrOf(raw), v.MaxBits())
}

// InetMerge is inet_merge(a, b): the smallest network (a cidr) that
// contains both; 22023 across families.
func InetMerge(a, b Inet) (string, error) {
	if a.Addr.Is4() != b.Addr.Is4() {
		return "", pgerr.New(pgerr.InvalidParameterValue, "cannot merge addresses from different families")
	}
	x, y := a.Addr.AsSlice(), b.Addr.AsSlice()
	n := min(a.Bits, b.Bits)
	common := 0
	for common < n && x[common/8]&(0x80>>(common%8)) == y[common/8]&(0x80>>(common%8)) {
		common++
	}
	m := Inet{Addr: a.Addr, Bits: common}
	return MakeInet(m.Network(), common), nil
}

// CidrAbbrev is abbrev(cidr) (inet_cidr_ntop): the network's address
// cut after its netmask's last octet (IPv4) or word (IPv6), then
// /netmask: 10.1/16, 2001:db8/32.
func CidrAbbrev(d string) string {
	v := SplitInet(d)
	var s string
	if v.Addr.Is4() {
		s = cidrAbbrev4(v.Addr.AsSlice(), v.Bits)
	} else {
		s = cidrAbbrev6(v.Network().AsSlice(), v.Bits)
	}
	return s + "/" + strconv.Itoa(v.Bits)
}

// cidrAbbrev4 writes the whole octets of the netmask, then the partial
// one masked; "0" for no netmask.
func cidrAbbrev4(raw []byte, bits int) string {
	var parts []string
	for i := 0; i < bits/8; i++ {
		parts = append(parts, strconv.Itoa(int(raw[i])))
	}
	if b := bits % 8; b > 0 {
		parts = append(parts, strconv.Itoa(int(raw[bits/8]&byte(0xff<<(8-b)))))
	}
	if bits == 0 {
		return "0"
	}
	return strings.Join(parts, ".")
}

// cidrAbbrev6 writes the words the netmask covers (at least two), the
// longest run of zero words as ::, and a tail in dotted IPv4 where
// PostgreSQL's inet_cidr_ntop_ipv6 does (its run search included).
func cidrAbbrev6(s []byte, bits int) string {
	if bits == 0 {
		return "::"
	}
	words := max((bits+15)/16, 2)
	zeroS, zeroL, tmpS, tmpL := 0, 0, 0, 0
	for i := 0; i < words*2; i += 2 {
		if s[i]|s[i+1] == 0 {
			if tmpL == 0 {
				tmpS = i / 2
			}
			tmpL++
		} else if tmpL != 0 && zeroL < tmpL {
			zeroS, zeroL, tmpL = tmpS, tmpL, 0
		}
	}
	if tmpL != 0 && zeroL < tmpL {
		zeroS, zeroL = tmpS, tmpL
	}
	isV4 := zeroL != words && zeroS == 0 && (zeroL == 6 || zeroL == 5 && s[10] == 0xff && s[11] == 0xff ||
		zeroL == 7 && s[14] != 0 && s[15] != 1)
	var b strings.Builder
	for p := 0; p < words; p++ {
		w := s[2*p:]
		switch {
		case zeroL != 0 && p >= zeroS && p < zeroS+zeroL:
			if p == zeroS {
				b.WriteByte(':')
			}
			if p == words-1 {
				b.WriteByte(':')
			}
		case isV4 && p > 5:
			b.WriteByte(map[bool]byte{true: ':', false: '.'}[p == 6])
			b.WriteString(strconv.Itoa(int(w[0])))
			if p != 7 || bits > 120 {
				b.WriteByte('.')
				b.WriteString(strconv.Itoa(int(w[1])))
			}
		default:
			if b.Len() > 0 {
				b.WriteByte(':')
			}
			b.WriteString(strconv.FormatInt(int64(w[0])<<8|int64(w[1]), 16))
		}
	}
	return b.String()
}
