package pgcopy

import (
	"encoding/binary"
	"net/netip"
	"unicode/utf8"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The binary forms of uuid (its 16 bytes), time (int64 microseconds
// since midnight, big-endian), timetz (that, then int32 seconds west of
// UTC), bpchar (its text, padding included) and inet / cidr (family 2 or
// 3, netmask length, is-cidr flag, address length, address), as
// uuid_send, time_send, timetz_send, bpcharsend and inet_send write them.
// The wire protocol uses them too.

// DecodeBinaryExt decodes the binary form of a uuid, time, timetz or bpchar
// value; ok is false for other types.
func DecodeBinaryExt(v []byte, t types.Type) (d types.Datum, ok bool, err error) {
	switch t.ID {
	case types.IDUUID:
		if len(v) != 16 {
			return nil, true, pgerr.New(pgerr.InvalidBinaryRep, "invalid uuid length %d", len(v))
		}
		return string(v), true, nil
	case types.IDTime:
		if len(v) != 8 {
			return nil, true, errBinary
		}
		n := int64(binary.BigEndian.Uint64(v))
		if n < 0 || n > types.MicrosPerDay {
			return nil, true, pgerr.New(pgerr.DatetimeFieldOverflow, "time out of range")
		}
		return types.RoundTime(n, t), true, nil
	case types.IDTimeTZ:
		if len(v) != 12 {
			return nil, true, errBinary
		}
		n, zone := int64(binary.BigEndian.Uint64(v)), int32(binary.BigEndian.Uint32(v[8:]))
		if !types.TimeTZValid(n, zone) {
			return nil, true, pgerr.New(pgerr.DatetimeFieldOverflow, "time out of range")
		}
		return types.PackTimeTZ(types.RoundTime(n, t), zone), true, nil
	case types.IDInet, types.IDCidr:
		d, err := decodeBinaryInet(v, t)
		return d, true, err
	case types.IDBpchar:
		if !utf8.Valid(v) {
			return nil, true, pgerr.New(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
		}
		s, err := types.CheckBpchar(string(v), t, false)
		return s, true, err
	}
	return nil, false, nil
}

// AppendBinaryExt appends the binary form of a non-NULL uuid, time,
// timetz or bpchar value; ok is false for other types.
func AppendBinaryExt(buf []byte, d types.Datum, t types.Type) ([]byte, bool) {
	switch t.ID {
	case types.IDUUID, types.IDBpchar:
		if s, isStr := d.(string); isStr {
			return append(buf, s...), true
		}
	case types.IDTime:
		if n, isInt := d.(int64); isInt {
			return binary.BigEndian.AppendUint64(buf, uint64(n)), true
		}
	case types.IDInet, types.IDCidr:
		if s, isStr := d.(string); isStr {
			n := types.SplitInet(s)
			raw := n.Addr.AsSlice()
			cidr := byte(0)
			if t.ID == types.IDCidr {
				cidr = 1
			}
			return append(append(buf, s[0], byte(n.Bits), cidr, byte(len(raw))), raw...), true
		}
	case types.IDTimeTZ:
		if n, isInt := d.(int64); isInt {
			micros, zone := types.SplitTimeTZ(n)
			return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(buf, uint64(micros)), uint32(zone)), true
		}
	}
	return buf, false
}

// decodeBinaryInet reads inet_recv's form.
func decodeBinaryInet(v []byte, t types.Type) (types.Datum, error) {
	bad := func(what string) error {
		return pgerr.New(pgerr.InvalidBinaryRep, "invalid %s in external \"%s\" value", what, t)
	}
	if len(v) < 4 || (v[0] != 2 && v[0] != 3) {
		return nil, bad("address family")
	}
	n := 4
	if v[0] == 3 {
		n = 16
	}
	if int(v[3]) != n || len(v) != 4+n {
		return nil, bad("length")
	}
	addr, _ := netip.AddrFromSlice(v[4:])
	if int(v[1]) > addr.BitLen() {
		return nil, bad("bits")
	}
	d := types.MakeInet(addr, int(v[1]))
	if t.ID == types.IDCidr && types.SplitInet(d).Network() != addr {
		return nil, pgerr.New(pgerr.InvalidBinaryRep, "invalid external \"cidr\" value")
	}
	return d, nil
}
