package expr

import (
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// inet and cidr: strings of bytes ordered as network_cmp orders
// (types/inet.go). As in Postgres, the operators and functions are
// inet's, and a cidr converts to inet implicitly (unchanged); an inet
// converts to cidr in assignments, dropping its host bits; converting
// either to text writes the netmask always (text(inet)).

const (
	tInet = types.IDInet
	tCidr = types.IDCidr
)

func init() {
	for _, op := range comparisons {
		addBinary(op, tInet, tInet, tBool, comparison(op, types.TInet))
	}
	contains := func(strict, flip bool) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			l, r := types.SplitInet(a[0].(string)), types.SplitInet(a[1].(string))
			if flip {
				l, r = r, l
			}
			return l.Contains(r, strict), nil
		}
	}
	addBinary(">>", tInet, tInet, tBool, contains(true, false))
	addBinary(">>=", tInet, tInet, tBool, contains(false, false))
	addBinary("<<", tInet, tInet, tBool, contains(true, true))
	addBinary("<<=", tInet, tInet, tBool, contains(false, true))
	addBinary("&&", tInet, tInet, tBool, func(a []types.Datum) (types.Datum, error) {
		return types.SplitInet(a[0].(string)).Overlaps(types.SplitInet(a[1].(string))), nil
	})
	inetFn := func(res types.ID, f func(types.Inet) types.Datum) sig {
		return fn1(tInet, res, func(a []types.Datum) (types.Datum, error) { return f(types.SplitInet(a[0].(string))), nil })
	}
	register(overloads(fn1(tInet, tText, func(a []types.Datum) (types.Datum, error) {
		return types.InetHost(a[0].(string)), nil
	})), "host")
	register(overloads(inetFn(tInt4, func(v types.Inet) types.Datum { return int64(v.Bits) })), "masklen")
	register(overloads(inetFn(tInt4, func(v types.Inet) types.Datum {
		if v.Addr.Is4() {
			return int64(4)
		}
		return int64(6)
	})), "family")
	register(overloads(inetFn(tCidr, func(v types.Inet) types.Datum { return types.MakeInet(v.Network(), v.Bits) })), "network")
	register(overloads(inetFn(tInet, func(v types.Inet) types.Datum { return types.MakeInet(v.Broadcast(), v.Bits) })), "broadcast")
	register(overloads(inetFn(tInet, func(v types.Inet) types.Datum {
		return types.MakeInet(v.Netmask(), v.MaxBits())
	})), "netmask")
	register(overloads(inetFn(tInet, func(v types.Inet) types.Datum { return types.InetHostmask(v) })), "hostmask")
	register(overloads(
		fn1(tCidr, tText, func(a []types.Datum) (types.Datum, error) { return types.CidrAbbrev(a[0].(string)), nil }),
		fn1(tInet, tText, func(a []types.Datum) (types.Datum, error) { return types.FormatInet(a[0].(string), false), nil }),
	), "abbrev")
	register(overloads(fn2(tInet, tInt4, tInet, setMasklen(false)), fn2(tCidr, tInt4, tCidr, setMasklen(true))), "set_masklen")
	register(overloads(fn2(tInet, tInet, tBool, func(a []types.Datum) (types.Datum, error) {
		return types.SplitInet(a[0].(string)).Addr.Is4() == types.SplitInet(a[1].(string)).Addr.Is4(), nil
	})), "inet_same_family")
	register(overloads(fn2(tInet, tInet, tCidr, func(a []types.Datum) (types.Datum, error) {
		return types.InetMerge(types.SplitInet(a[0].(string)), types.SplitInet(a[1].(string)))
	})), "inet_merge")
	registerInetArith()
}

// registerInetArith adds inet ± bigint, inet - inet and the bitwise
// operators ~, & and |.
func registerInetArith() {
	add := func(neg bool, inet, n int) evalFn {
		return func(a []types.Datum) (types.Datum, error) {
			d := a[n].(int64)
			if neg {
				if d == math.MinInt64 {
					return nil, pgerr.New(pgerr.NumericOutOfRange, "result is out of range")
				}
				d = -d
			}
			return types.InetAdd(types.SplitInet(a[inet].(string)), d)
		}
	}
	addBinary("+", tInet, tInt8, tInet, add(false, 0, 1))
	addBinary("+", tInt8, tInet, tInet, add(false, 1, 0))
	addBinary("-", tInet, tInt8, tInet, add(true, 0, 1))
	addBinary("-", tInet, tInet, tInt8, func(a []types.Datum) (types.Datum, error) {
		return types.InetSub(types.SplitInet(a[0].(string)), types.SplitInet(a[1].(string)))
	})
	for _, op := range []byte{'&', '|'} {
		addBinary(string(op), tInet, tInet, tInet, func(a []types.Datum) (types.Datum, error) {
			return types.InetBitwise(op, types.SplitInet(a[0].(string)), types.SplitInet(a[1].(string)))
		})
	}
	unaryOps["~"] = append(unaryOps["~"], sig{params: []types.ID{tInet}, result: tInet,
		fn: func(a []types.Datum) (types.Datum, error) {
			v := types.SplitInet(a[0].(string))
			return types.InetBitwise('~', v, v)
		}})
}

// setMasklen is set_masklen(inet or cidr, integer).
func setMasklen(cidr bool) evalFn {
	return func(a []types.Datum) (types.Datum, error) {
		return types.InetSetMasklen(types.SplitInet(a[0].(string)), int(a[1].(int64)), cidr)
	}
}

// inetCastLevel decides castLevel for casts to and from inet and cidr:
// cidr to inet implicitly, inet to cidr in assignments, the string
// types as any type's I/O, nothing else.
func inetCastLevel(from, to types.ID) (castContext, bool, bool) {
	isNet := func(id types.ID) bool { return id == tInet || id == tCidr }
	switch {
	case !isNet(from) && !isNet(to):
		return 0, false, false
	case from == tCidr && to == tInet:
		return ctxImplicit, true, true
	case from == tInet && to == tCidr:
		return ctxAssign, true, true
	case category(to) == catString:
		return ctxAssign, true, true
	case category(from) == catString:
		return ctxExplicit, true, true
	}
	return 0, false, true
}

// inetConverter converts from inet and cidr; nil for other casts.
func inetConverter(from, to types.Type, explicit bool) convertFn {
	switch {
	case from.ID == tInet && to.ID == tCidr:
		return func(v types.Datum) (types.Datum, error) {
			n := types.SplitInet(v.(string))
			return types.MakeInet(n.Network(), n.Bits), nil
		}
	case (from.ID == tInet || from.ID == tCidr) && to.ID == tInet:
		return func(v types.Datum) (types.Datum, error) { return v, nil }
	case (from.ID == tInet || from.ID == tCidr) && category(to.ID) == catString:
		return toText(from, to, explicit) // text(inet)
	}
	return nil
}
