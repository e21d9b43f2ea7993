package expr

import "testing"

func bytea(hex string) node { return lit(hex, "bytea") }

// byteaCases were checked against PostgreSQL 15 by running each case's
// SQL rendering.
var byteaCases = []exprCase{
	{bin(bytea(`\x0102`), "||", bytea(`\xff`)), `\x0102ff`},
	{bin(bytea(`\x01`), "||", str(`\x02`)), `\x0102`},
	{bin(str(`\x01`), "||", bytea(`\x02`)), `\x0102`},
	{bin(bytea(`\x01`), "||", lit("a", "text")), `\x01a`},
	{bin(bytea(`\x00`), "<", bytea(`\x0000`)), "t"},
	{bin(bytea(`\xff`), ">", bytea(`\x00ff`)), "t"},
	{bin(bytea(`\x80`), ">", bytea(`\x7f`)), "t"},
	{bin(bytea(`\x01`), "=", str(`\x01`)), "t"},
	{bin(bytea(`\xc3a9`), "LIKE", str("__")), "t"},
	{bin(bytea(`\x61ff62`), "LIKE", str(`a\377%`)), "t"},
	{bin(bytea(`\x61`), "ILIKE", str("a")), "ERROR 42883 operator does not exist: bytea ~~* unknown"},
	{bin(bytea(`\x61`), "+", i4(1)), "ERROR 42883 operator does not exist: bytea + integer"},
	{fn("length", bytea(`\xc3a9`)), "2"},
	{fn("length", str("é")), "1"},
	{fn("octet_length", bytea(`\x`)), "0"},
	{fn("substr", bytea(`\x0102030405`), i4(2), i4(2)), `\x0203`},
	{fn("substr", bytea(`\x0102030405`), i4(-1), i4(3)), `\x01`},
	{fn("substr", bytea(`\x0102030405`), i4(2147483647), i4(2147483647)), `\x`},
	{fn("substring", bytea(`\x0102030405`), i4(4)), `\x0405`},
	{fn("substr", bytea(`\x01`), i4(1), i4(-1)), "ERROR 22011 negative substring length not allowed"},
	{fn("position", bytea(`\x03`), bytea(`\x010203`)), "3"},
	{fn("get_byte", bytea(`\x01ff`), i4(1)), "255"},
	{fn("get_byte", bytea(`\x01ff`), i4(-1)), "ERROR 2202E index -1 out of valid range, 0..1"},
	{fn("set_byte", bytea(`\x0102`), i4(1), i4(-1)), `\x01ff`},
	{fn("get_bit", bytea(`\x0102`), lit("9", "int8")), "1"},
	{fn("get_bit", bytea(`\x0102`), lit("16", "int8")), "ERROR 2202E index 16 out of valid range, 0..15"},
	{fn("set_bit", bytea(`\x0000`), lit("15", "int8"), i4(1)), `\x0080`},
	{fn("set_bit", bytea(`\x00`), lit("0", "int8"), i4(2)), "ERROR 22023 new bit must be 0 or 1"},
	{fn("btrim", bytea(`\x00010200`), bytea(`\x0002`)), `\x01`},
	{fn("encode", bytea(`\x00ff`), str("Hex")), "00ff"},
	{fn("encode", bytea(`\x00ff`), str("base64")), "AP8="},
	{fn("encode", bytea(`\x005c61ff`), str("escape")), `\000\\a\377`},
	{fn("encode", bytea(`\x00`), str("foo")), `ERROR 22023 unrecognized encoding: "foo"`},
	{fn("decode", str("00FF"), str("hex")), `\x00ff`},
	{fn("decode", str("AP8="), str("base64")), `\x00ff`},
	{fn("decode", str(`\000a`), str("escape")), `\x0061`},
	{fn("decode", str("0g"), str("hex")), `ERROR 22023 invalid hexadecimal digit: "g"`},
	{fn("decode", str("x"), str("bad")), `ERROR 22023 unrecognized encoding: "bad"`},
	{fn("md5", bytea(`\x`)), "d41d8cd98f00b204e9800998ecf8427e"},
	{fn("sha256", bytea(`\x`)), `\xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`},
	{fn("convert_from", bytea(`\xe282ac`), str("UTF8")), "€"},
	{fn("convert_from", bytea(`\xe282`), str("UTF8")), `ERROR 22021 invalid byte sequence for encoding "UTF8": 0xe2 0x82`},
	{fn("convert_from", bytea(`\x6100`), str("UTF8")), `ERROR 22021 invalid byte sequence for encoding "UTF8": 0x00`},
	{fn("convert_from", bytea(`\xff`), str("LATIN1")), "ÿ"},
	{fn("convert_from", bytea(`\x41`), str("nope")), `ERROR 22023 invalid source encoding name "nope"`},
	{fn("convert_to", str("ÿ"), str("latin1")), `\xff`},
	{cast_(bytea(`\x4100`), "text"), `\x4100`},
	{cast_(lit(`\x41`, "text"), "bytea"), `\x41`},
	{cast_(i4(1), "bytea"), "ERROR 42846 cannot cast type integer to bytea"},
}

func TestBytea(t *testing.T) { runCases(t, byteaCases) }
