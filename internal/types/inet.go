package types

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// An inet or cidr Datum is a string of bytes ordered as Postgres's
// network_cmp orders the values, so that it compares, keys and hashes
// as a string:
//
//	family (2: IPv4, 3: IPv6), the address masked to its netmask, the
//	netmask length, the full address
//
// (4 or 16 bytes each address, by family). Comparing two of them byte
// by byte compares the families, then the networks over the shorter
// netmask (a network's masked bits beyond the other's netmask are
// compared as zeros against its bits, which orders a shorter netmask
// first among equal prefixes), then the netmask lengths, then the
// addresses: network_cmp's order. A cidr has no bits set beyond its
// netmask.

const (
	inetFamily4 byte = 2
	inetFamily6 byte = 3
)

// Inet is an inet or cidr value taken apart.
type Inet struct {
	Addr netip.Addr
	Bits int
}

// MakeInet builds the Datum of an address with a netmask of bits.
func MakeInet(addr netip.Addr, bits int) string {
	raw := addr.AsSlice()
	fam := inetFamily4
	if addr.Is6() {
		fam = inetFamily6
	}
	buf := make([]byte, 0, 2+2*len(raw))
	buf = append(buf, fam)
	for i, b := range raw {
		buf = append(buf, b&maskByte(bits, i))
	}
	buf = append(buf, byte(bits))
	return string(append(buf, raw...))
}

// maskByte is byte i of a netmask of bits.
func maskByte(bits, i int) byte {
	switch n := bits - 8*i; {
	case n >= 8:
		return 0xff
	case n <= 0:
		return 0
	default:
		return byte(0xff << (8 - n))
	}
}

// SplitInet takes an inet or cidr Datum apart.
func SplitInet(d string) Inet {
	n := (len(d) - 2) / 2
	addr, _ := netip.AddrFromSlice([]byte(d[2+n:]))
	return Inet{Addr: addr, Bits: int(d[1+n])}
}

// MaxBits is 32 for IPv4, 128 for IPv6.
func (v Inet) MaxBits() int { return v.Addr.BitLen() }

// Network is the address with the bits beyond the netmask cleared.
func (v Inet) Network() netip.Addr {
	p, _ := v.Addr.Prefix(v.Bits)
	return p.Addr()
}

// Broadcast is the address with the bits beyond the netmask set.
func (v Inet) Broadcast() netip.Addr {
	raw := v.Addr.AsSlice()
	for i := range raw {
		raw[i] |= ^maskByte(v.Bits, i)
	}
	a, _ := netip.AddrFromSlice(raw)
	return a
}

// Netmask is the netmask as an address.
func (v Inet) Netmask() netip.Addr {
	raw := v.Addr.AsSlice()
	for i := range raw {
		raw[i] = maskByte(v.Bits, i)
	}
	a, _ := netip.AddrFromSlice(raw)
	return a
}

// Contains reports whether w's network lies within v's: v's netmask is
// no longer than w's and they agree on its bits (>>=; strict adds that
// the netmasks differ: >>).
func (v Inet) Contains(w Inet, strict bool) bool {
	if v.Addr.Is4() != w.Addr.Is4() || v.Bits > w.Bits || strict && v.Bits == w.Bits {
		return false
	}
	p, _ := w.Addr.Prefix(v.Bits)
	return p.Addr() == v.Network()
}

// Overlaps reports whether either network contains the other (&&).
func (v Inet) Overlaps(w Inet) bool { return v.Contains(w, false) || w.Contains(v, false) }

// ParseInet reads an inet (cidr false) or cidr value as inet_in and
// cidr_in do: an IPv4 or IPv6 address with an optional /netmask; a cidr
// (or an inet with a netmask) may leave out trailing IPv4 octets, and a
// cidr without a netmask takes the classful one. A cidr with bits set
// beyond its netmask is an error.
func ParseInet(s string, cidr bool) (string, error) {
	name := "inet"
	if cidr {
		name = "cidr"
	}
	bad := func() error {
		return pgerr.New(pgerr.InvalidTextRep, "invalid input syntax for type %s: %q", name, s)
	}
	addrText, bitsText, hasBits := strings.Cut(s, "/")
	var addr netip.Addr
	var err error
	classful := -1
	if strings.Contains(addrText, ":") {
		addr, err = netip.ParseAddr(addrText)
		if err != nil || addr.Zone() != "" {
			return "", bad()
		}
	} else if addr, classful, err = parseIPv4Octets(addrText, cidr || hasBits); err != nil {
		return "", bad()
	}
	bits := addr.BitLen()
	switch {
	case hasBits:
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || n > addr.BitLen() || bitsText == "" || strings.Trim(bitsText, "0123456789") != "" {
			return "", bad()
		}
		bits = n
	case cidr && classful >= 0:
		bits = classful
	}
	v := Inet{Addr: addr, Bits: bits}
	if cidr && v.Network() != addr {
		return "", &pgerr.Error{Code: pgerr.InvalidTextRep, Message: "invalid cidr value: " + strconv.Quote(s),
			Detail: "Value has bits set to right of mask."}
	}
	return MakeInet(addr, bits), nil
}

// parseIPv4Octets reads a dotted IPv4 address; with short true it may
// have fewer than four octets (the rest zero), and classful is then the
// netmask length Postgres imputes to a cidr written without one (-1 for
// four octets: all 32 bits).
func parseIPv4Octets(s string, short bool) (netip.Addr, int, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || len(parts) < 4 && !short {
		return netip.Addr{}, 0, errBadOctets
	}
	var raw [4]byte
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return netip.Addr{}, 0, errBadOctets
		}
		raw[i] = byte(n)
	}
	classful := 32
	switch first := raw[0]; {
	case first >= 240:
		classful = 32
	case first >= 224:
		classful = 8
	case first >= 192:
		classful = 24
	case first >= 128:
		classful = 16
	default:
		classful = 8
	}
	if classful < 8*len(parts) {
		classful = 8 * len(parts)
	}
	if classful == 8 && raw[0] == 224 {
		classful = 4
	}
	return netip.AddrFrom4(raw), classful, nil
}

var errBadOctets = pgerr.New(pgerr.InvalidTextRep, "bad IPv4 octets")

// FormatInet writes an inet as inet_out does (the address, then
// /netmask unless it is all of the address) or a cidr as cidr_out does
// (always with /netmask); text(inet) is withMask true.
func FormatInet(d string, withMask bool) string {
	v := SplitInet(d)
	s := formatAddr(v.Addr)
	if withMask || v.Bits != v.MaxBits() {
		s += "/" + strconv.Itoa(v.Bits)
	}
	return s
}

// formatAddr writes an address as Postgres's inet_net_ntop does; an IPv6
// address whose first six words are zero but not the seventh, or which
// is IPv4-mapped, ends in dotted IPv4.
func formatAddr(a netip.Addr) string {
	if a.Is4() {
		return a.String()
	}
	raw := a.As16()
	if bytes.Equal(raw[:12], make([]byte, 12)) && (raw[12] != 0 || raw[13] != 0) {
		return "::" + netip.AddrFrom4([4]byte(raw[12:])).String()
	}
	return a.String()
}

// InetHost is host(inet): the address without its netmask.
func InetHost(d string) string { return formatAddr(SplitInet(d).Addr) }
