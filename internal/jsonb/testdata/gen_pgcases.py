#!/usr/bin/env python3
"""Generates pgcases_test.go: expected results computed by PostgreSQL 15.

Needs a PostgreSQL 15 server (UTF8, C or C.UTF-8 collation) reachable with
psql; set PGHOST, PGPORT, PGUSER, PGDATABASE. It creates a function ev(text)
in that database. Usage (from internal/jsonb):

    python3 testdata/gen_pgcases.py > pgcases_test.go && gofmt -w pgcases_test.go
"""
import hashlib
import random
import subprocess
import sys

EV = r"""
CREATE OR REPLACE FUNCTION ev(q text) RETURNS text AS $$
DECLARE r text; st text; msg text; det text; hnt text; ctx text;
BEGIN
  EXECUTE 'SELECT (' || q || ')::text' INTO r;
  RETURN coalesce('OK:' || r, 'NULL');
EXCEPTION WHEN others THEN
  GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
    det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT, ctx = PG_EXCEPTION_CONTEXT;
  RETURN 'ERR:' || st || E'\x1f' || msg || E'\x1f' || coalesce(det,'') || E'\x1f' ||
    coalesce(hnt,'') || E'\x1f' || ctx;
END $$ LANGUAGE plpgsql;
"""


def psql(script):
    return subprocess.run(["psql", "-X", "-A", "-t", "-0", "-v", "ON_ERROR_STOP=1"],
                          input=script.encode(), capture_output=True, check=True).stdout.decode()


def ev(exprs):
    out = []
    for i in range(0, len(exprs), 500):
        chunk = exprs[i:i + 500]
        script = "".join("select ev(%s);\n" % lit(e) for e in chunk)
        recs = psql(script).split("\0")
        if recs and recs[-1] in ("", "\n"):
            recs = recs[:-1]
        assert len(recs) == len(chunk), (len(recs), len(chunk))
        out += recs
    return out


def lit(s):
    """A dollar-quoted SQL literal of s."""
    tag = "$J$"
    n = 0
    while tag in s:
        n += 1
        tag = "$J%d$" % n
    return tag + s + tag


def textarr(path):
    if not path:
        return "'{}'::text[]"
    return "ARRAY[%s]::text[]" % ",".join("NULL" if p is None else lit(p) for p in path)


def goq(s):
    """A Go interpreted string literal of s."""
    o = ['"']
    for ch in s:
        c = ord(ch)
        if ch == '"':
            o.append('\\"')
        elif ch == '\\':
            o.append('\\\\')
        elif ch == '\n':
            o.append('\\n')
        elif ch == '\t':
            o.append('\\t')
        elif ch == '\r':
            o.append('\\r')
        elif c < 0x20 or c == 0x7f:
            o.append('\\x%02x' % c)
        else:
            o.append(ch)
    o.append('"')
    return "".join(o)


def goslice(path):
    return "[]string{%s}" % ", ".join(goq(p or "") for p in path)


def gonulls(path):
    if all(p is not None for p in path):
        return "nil"
    return "[]bool{%s}" % ", ".join("true" if p is None else "false" for p in path)


def gores(r):
    if r == "NULL":
        return "null()"
    if r.startswith("OK:"):
        if len(r) > 300:
            h = hashlib.sha256(r[3:].encode()).hexdigest()
            return "okHash(%d, %s)" % (len(r[3:].encode()), goq(h))
        return "ok(%s)" % goq(r[3:])
    assert r.startswith("ERR:"), r
    code, msg, det, hint, ctx = r[4:].split("\x1f")
    ctx = ctx.split("\nPL/pgSQL function ev(")[0]
    if not ctx.startswith("JSON data"):
        ctx = ""
    return "perr(%s)" % ", ".join(goq(x) for x in (code, msg, det, hint, ctx))


def gobool(r):
    assert r in ("OK:true", "OK:false"), r
    return r[3:]


def emit(name, typ, rows):
    print("var %s = []%s{" % (name, typ))
    for row in rows:
        print("\t{%s}," % ", ".join(row))
    print("}")
    print()


# ---------------------------------------------------------------- inputs

PARSE = [
    # scalars
    'null', 'true', 'false', '0', '-0', '-0.0', '1', '-1', '1.50', '0.5', '-0.5',
    '1e2', '1E2', '1e+2', '1e-2', '1.5e1', '1.50e1', '1.5e-3', '0.000e5', '0e-3', '-0e5',
    '12345678901234567890123456789012345678901234567890', '1e-20', '-1.23e-5', '123.456e2',
    '1e1000', '1e-1000', '1e131072', '0.1e131072', '1e-16383', '1e-16384', '0e-16384',
    '1.5e-16383', '1e1073741823', '0e1073741822', '1e99999999999999999999',
    '""', '"a"', '"abc def"', '"\\""', '"\\\\"', '"\\/"', '"\\b\\f\\n\\r\\t"',
    '"\\u0041"', '"\\u00e9"', '"\\u00E9"', '"\\u20ac"', '"\\ud83d\\ude00"', '"\\uD83D\\uDE00"',
    '"é€😀"', '"\\u0001\\u001f\\u007f\\u0080"', '"a\\u0000b"', '"\\u0000"',
    '"\\ud800"', '"\\ud800x"', '"\\ud800\\ud800"', '"\\udc00"', '"\\ud800\\n"', '"\\ud800\\u0041"',
    '"\\x"', '"\\a"', '"\\é"', '"\\u12"', '"\\u12x4"', '"\\u"', '"\\u00', '"\\', '"abc', '"é',
    '"a\nb"', '"a\tb"', '"a\x01"', '"\x7f"',
    # containers
    '[]', '{}', ' [ ] ', '[1,2,3]', '[1, "a", null, true, false, [], {}]', '[[[[1]]]]',
    '{"a":1}', '{"b":1,"a":2}', '{"aa":1,"b":2,"a":3,"":4}', '{"a":1,"a":2}', '{"a":1,"b":2,"a":3}',
    '{"a":{"a":1,"a":2},"a":[1]}', '{"\\u0061":1,"a":2}', '{"b":1,"a":{"d":1,"c":2}}',
    '{"é":1,"z":2,"zz":3}', '{"a":[1,{"c":null,"b":true}],"A":"x"}',
    ' \t\n\r{ "a" : [ 1 , 2 ] }\n ', '[1.0,1.00,1e0,-0]',
    # syntax errors
    '', ' ', '\n', '[', '{', '[1,', '[1', '{"a"', '{"a":', '{"a":1', '{"a":1,',
    '[1,]', '[,1]', '[1 2]', '[1:2]', '{,}', '{"a" 1}', '{"a":1,}', '{1:1}', '{"a":1 "b":2}',
    '{"a"}', '{"a",1}', '{"a"::1}', '{[]:1}', '1 2', '1,', '[]]', '{}}', ']', '}', ',', ':',
    '01', '-01', '1.', '.1', '-', '-a', '+1', '1.e5', '1e', '1e+', '1ea', '1.5x', '0x10', '1_0',
    'truex', 'True', 'nul', 'NULL', 'nan', 'NaN', 'Infinity', '-Infinity', '#', '@', "'a'",
    'éé', 'a', 'undefined', '\f1', '\x0b1', '[1,\n2,\n  x]', '[1,\n2,\n  "\\x"]', '{\n"a":\n\n1 x}',
    '[1,\r\n 2,\r\n y]', '"\\u00e9\\x"',
    '[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,x,31,32]',
    '[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,x]',
    '[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,',
    '["éééééééééééééééééééééééééééééééééééééééééééééééééééééé", x]',
    '["abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", "\\q"]',
    '[1, 1e1000000, x]', '[1e1000000, 1]', '1e1000000 x', '{"a":1e131072}',
    '[1,2] ', '  "x"  ', '[1,2]\n', '[1,2] x', '[1,2]\nx',
]

DOCS = [
    'null', 'true', 'false', '0', '1.50', '-2', '"a"', '""', '"b"',
    '[]', '{}', '[1,2,3]', '["a","b","a",1,null]', '[null]', '[[1,2],[3]]',
    '[{"a":1},{"b":[1,2]}]', '{"a":1}', '{"a":null,"b":2}',
    '{"a":{"b":{"c":[1,2,{"d":"e"}]}},"x":[10,20,30]}', '{"a":[1,2,3],"b":"s","":0}',
    '{"aa":1,"a":2,"b":[[]],"1":"one"}', '[["a"],{"a":"b"},"c"]',
]
KEYS = ['a', 'b', '', 'x', 'aa', '0', '1', 'c', 'A', 'null', 'one', 'é']
INDEXES = [0, 1, 2, 3, 5, -1, -2, -3, -4, -5, 100, -100, 2147483647, -2147483648]
PATHS = [
    [], ['a'], ['b'], ['x'], [''], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', '2', 'd'],
    ['a', 'b', 'c', '-1'], ['a', 'b', 'c', '-1', 'd'], ['a', 'b', 'c', '5'], ['x', '1'], ['x', '-1'],
    ['x', '3'], ['x', '-4'], ['x', 'a'], ['x', '1', 'z'], ['0'], ['1'], ['2'], ['-1'], ['-3'],
    ['-4'], ['3'], ['0', '0'], ['0', '1'], ['0', 'a'], ['1', 'b'], ['1', 'b', '1'], ['1', 'b', '5'],
    [' 1'], ['+1'], ['1 '], ['1.0'], ['01'], ['-0'], ['99999999999'], ['2147483647'],
    ['-2147483648'], ['a', '0'], ['a', '-1'], ['a', '9'], ['b', '0'], ['b', '0', '0'], ['aa'],
    ['a', 'x', 'y'], ['z'], ['z', 'y'], ['1', 'a'],
]
SET_DOCS = ['1', '"a"', '[]', '{}', '[1,2,3]', '[[1,2],[3]]', '[{"a":1},{"b":[1,2]}]', '{"a":null,"b":2}',
            '{"a":{"b":{"c":[1,2,{"d":"e"}]}},"x":[10,20,30]}', '{"aa":1,"a":2,"b":[[]],"1":"one"}']
SET_PATHS = [
    [], ['a'], ['b'], ['x'], [''], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', '2', 'd'],
    ['a', 'b', 'c', '-1'], ['a', 'b', 'c', '5'], ['a', 'b', 'c', '-9'], ['x', '1'], ['x', '-1'], ['x', '3'],
    ['x', '-4'], ['x', 'a'], ['x', '1', 'z'], ['0'], ['1'], ['-1'], ['-3'], ['-4'], ['3'], ['0', '0'],
    ['0', 'a'], ['1', 'b'], ['1', 'b', '1'], [' 1'], ['1 '], ['99999999999'], ['-2147483648'],
    ['b', '0'], ['aa'], ['z'], ['z', 'y'],
]
NULL_PATHS = [[None], ['a', None], [None, 'a'], ['x', None], ['a', 'b', None], ['0', None],
              ['z', None], ['9', None], ['1', None], ['b', None]]
KEYLISTS = [[], ['a'], ['a', 'b'], ['x', 'y'], ['', 'c'], ['b', 'zz'], ['a', 'a'], ['1', 'one'],
            ['aa', 'a', 'b', '1']]
CONTAINS_EXTRA = [
    ('[1,2,[3]]', '[[3],1,1]'), ('[1,2,[3]]', '[3]'), ('{"a":[1,2]}', '{"a":[1]}'),
    ('{"a":[1,2]}', '{"a":1}'), ('[[1,2]]', '[[]]'), ('[1]', '[[]]'), ('[{}]', '[[]]'),
    ('[[]]', '[{}]'), ('[{"a":1,"b":2}]', '[{"a":1}]'), ('[{"a":1,"b":2}]', '{"a":1}'),
    ('{"a":{"b":[1,{"c":2}]}}', '{"a":{"b":[{"c":2}]}}'), ('[1,1]', '[1,1,1]'),
    ('1.0', '1'), ('[1.0]', '1'), ('{"a":1.0}', '{"a":1}'), ('[[1]]', '1'), ('[[1]]', '[1]'),
    ('[1,[1]]', '[[1],1]'), ('{"a":{"b":1,"c":2}}', '{"a":{}}'), ('{"a":{"b":1}}', '{"a":[]}'),
    ('[{"a":[1,2]},{"a":[3]}]', '[{"a":[1,3]}]'), ('[{"a":[1,2]},{"a":[3]}]', '[{"a":[1]},{"a":[3]}]'),
    ('"a"', '"a"'), ('"a"', '"b"'), ('"a"', '["a"]'), ('["a"]', '"a"'), ('null', 'null'),
    ('[null]', 'null'), ('true', 'true'), ('[true]', 'false'), ('{}', '{}'), ('[]', '[]'),
    ('{"a":{"b":{"c":1}}}', '{"a":{"b":{}}}'), ('[[1,[2,3]]]', '[[[3]]]'), ('[[1,[2,3]]]', '[[3]]'),
    ('["a",["b"]]', '["b"]'), ('[1,"1"]', '["1",1]'), ('[1]', '["1"]'),
]
EXISTS_DOCS = DOCS + ['"é"', '["é",["a"]]', '{"é":{"a":1}}', '"1"', '1']

ORDER = [
    'null', 'true', 'false', '0', '-0.0', '1', '1.0', '1.00', '-1', '-1.5', '0.5', '10', '9.99',
    '1e2', '100', '123456789012345678901234567890', '-123456789012345678901234567890',
    '0.000000000000000000001', '-0.000000000000000000001', '""', '"a"', '"A"', '"b"', '"ab"', '"aa"', '"é"',
    '"z"', '"\\u0001"', '" "', '"null"', '"1"', '"a\\u00e9"', '"ab"', '"\\ud83d\\ude00"', '[]', '[null]', '[1]', '[1.0]', '[2]',
    '[true]', '["a"]', '[[]]', '[{}]', '[1,2]', '[2,1]', '[1,2,3]', '[[1],2]', '[1,[2]]',
    '[null,null]', '[[[]]]', '[[1,2]]', '[[2]]', '{}', '{"a":1}', '{"a":1.0}', '{"a":2}', '{"b":1}', '{"aa":1}',
    '{"b":1,"aa":1}', '{"a":1,"b":2}', '{"a":1,"c":0}', '{"a":null}', '{"a":[]}', '{"a":{}}',
    '{"a":{"b":1}}', '{"a":[1,2]}', '{"":1}', '{"a":"x"}', '{"a":true}', '{"b":[1],"a":1}',
    '{"x":1,"y":2,"z":3}', '{"a":{"b":[1,{"c":2}]}}', '{"a":{"b":[1,{"c":3}]}}', '[{"a":1},{"a":2}]',
    '[{"a":1},[1]]', '[[1],{"a":1}]', '["b","a"]', '["a","b"]', '[false]', '[0]', '[""]',
]

PRETTY = ['{}', '[]', '1', '"a"', 'null', '[1,2]', '{"a":1}', '[[]]', '[{}]', '{"a":{}}',
          '{"a":{},"b":[],"c":[1,{"x":null}],"d":"s\\n"}', '[[1,[2,[3]]],{"a":{"b":{"c":[]}}}]',
          '{"aa":1,"b":[true,false,null,1.50,"x"]}']

NUMTEXT = ['0', '-0', '1', '1.5', '1.50', '-1.25e-3', '1e+100', '1.5e-07', '123456789.123456789',
           '1e-10', '-0.0', '100', '1E5', '2.5e+300', '5e-324', '1.7976931348623157e+308']

FLOATTEXT = ['NaN', 'Infinity', '-Infinity', '0', '-0', '1e100', '1.5e-7', '0.1', '123456.789',
             '1e-300', '1.7976931348623157e308', '-2.5']


def rand_value(rng, depth):
    """A random JSON text (with random spacing, escapes, key order and
    duplicate keys) built from small pools, so that values often share
    prefixes and compare deep."""
    ws = lambda: rng.choice(["", "", "", " ", "\n", "\t ", "\r\n"])
    kind = rng.choice(["null", "bool", "num", "num", "str", "str", "arr", "arr", "obj", "obj"] if depth < 3 else
                      ["null", "bool", "num", "str"])
    if kind == "null":
        return "null"
    if kind == "bool":
        return rng.choice(["true", "false"])
    if kind == "num":
        return rng.choice(["0", "-0", "1", "1.0", "1.50", "-1", "2", "10", "0.5", "1e1", "-2.5e-1", "100e-2",
                           "123456789012345678901", "-0.001"])
    if kind == "str":
        return rng.choice(['""', '"a"', '"b"', '"ab"', '"aa"', '"\\u0061"', '"é"', '"\\u00e9"', '"a\\nb"',
                           '"A"', '"\\"q\\""', '"\\ud83d\\ude00"'])
    if kind == "arr":
        n = rng.choice([0, 1, 1, 2, 2, 3])
        return "[" + ",".join(ws() + rand_value(rng, depth + 1) + ws() for _ in range(n)) + "]"
    n = rng.choice([0, 1, 1, 2, 2, 3, 4])
    keys = ['"a"', '"b"', '"aa"', '""', '"c"', '"\\u0062"', '"bb"']
    return "{" + ",".join(ws() + rng.choice(keys) + ws() + ":" + ws() + rand_value(rng, depth + 1) + ws()
                          for _ in range(n)) + "}"


def main():
    out = []
    print("// Code generated by testdata/gen_pgcases.py from PostgreSQL 15.18. DO NOT EDIT.")
    print()
    print("package jsonb")
    print()

    # Parse and ValidateJSON.
    rj = ev(["%s::jsonb" % lit(s) for s in PARSE])
    rv = ev(["%s::json" % lit(s) for s in PARSE])
    emit("pgParseCases", "parseCase", [(goq(s), gores(a), gores(b)) for s, a, b in zip(PARSE, rj, rv)])

    # -> and ->> by key.
    cases = [(d, k) for d in DOCS for k in KEYS]
    r1 = ev(["%s::jsonb -> %s::text" % (lit(d), lit(k)) for d, k in cases])
    r2 = ev(["%s::jsonb ->> %s::text" % (lit(d), lit(k)) for d, k in cases])
    emit("pgFieldCases", "getCase", [(goq(d), goq(k), "0", "nil", gores(a), gores(b))
                                     for (d, k), a, b in zip(cases, r1, r2)])

    # -> and ->> by index.
    cases = [(d, i) for d in DOCS for i in INDEXES]
    r1 = ev(["%s::jsonb -> (%d)::int" % (lit(d), i) for d, i in cases])
    r2 = ev(["%s::jsonb ->> (%d)::int" % (lit(d), i) for d, i in cases])
    emit("pgElemCases", "getCase", [(goq(d), '""', str(i), "nil", gores(a), gores(b))
                                    for (d, i), a, b in zip(cases, r1, r2)])

    # #> and #>>.
    cases = [(d, p) for d in DOCS for p in PATHS]
    r1 = ev(["%s::jsonb #> %s" % (lit(d), textarr(p)) for d, p in cases])
    r2 = ev(["%s::jsonb #>> %s" % (lit(d), textarr(p)) for d, p in cases])
    emit("pgPathCases", "getCase", [(goq(d), '""', "0", goslice(p), gores(a), gores(b))
                                    for (d, p), a, b in zip(cases, r1, r2)])

    # @>.
    cases = [(a, b) for a in DOCS for b in DOCS] + CONTAINS_EXTRA
    r1 = ev(["%s::jsonb @> %s::jsonb" % (lit(a), lit(b)) for a, b in cases])
    emit("pgContainsCases", "containsCase", [(goq(a), goq(b), gobool(r)) for (a, b), r in zip(cases, r1)])

    # ?, ?|, ?&.
    cases = [(d, k) for d in EXISTS_DOCS for k in KEYS]
    r1 = ev(["%s::jsonb ? %s::text" % (lit(d), lit(k)) for d, k in cases])
    emit("pgExistsCases", "existsCase", [(goq(d), "[]string{%s}" % goq(k), gobool(r), "false")
                                         for (d, k), r in zip(cases, r1)])
    cases = [(d, ks) for d in EXISTS_DOCS for ks in KEYLISTS]
    r1 = ev(["%s::jsonb ?| %s" % (lit(d), textarr(ks)) for d, ks in cases])
    r2 = ev(["%s::jsonb ?& %s" % (lit(d), textarr(ks)) for d, ks in cases])
    emit("pgExistsAnyAllCases", "existsCase", [(goq(d), goslice(ks), gobool(a), gobool(b))
                                               for (d, ks), a, b in zip(cases, r1, r2)])

    # ||.
    cases = [(a, b) for a in DOCS for b in DOCS]
    r1 = ev(["%s::jsonb || %s::jsonb" % (lit(a), lit(b)) for a, b in cases])
    emit("pgConcatCases", "binCase", [(goq(a), goq(b), gores(r)) for (a, b), r in zip(cases, r1)])

    # - text, - text[], - int.
    cases = [(d, k) for d in DOCS for k in KEYS]
    r1 = ev(["%s::jsonb - %s::text" % (lit(d), lit(k)) for d, k in cases])
    emit("pgDeleteKeyCases", "editCase", [(goq(d), "[]string{%s}" % goq(k), "nil", "0", '""', "false", gores(r))
                                          for (d, k), r in zip(cases, r1)])
    cases = [(d, ks) for d in DOCS for ks in KEYLISTS]
    r1 = ev(["%s::jsonb - %s" % (lit(d), textarr(ks)) for d, ks in cases])
    emit("pgDeleteKeysCases", "editCase", [(goq(d), goslice(ks), "nil", "0", '""', "false", gores(r))
                                           for (d, ks), r in zip(cases, r1)])
    cases = [(d, i) for d in DOCS for i in INDEXES]
    r1 = ev(["%s::jsonb - (%d)::int" % (lit(d), i) for d, i in cases])
    emit("pgDeleteIndexCases", "editCase", [(goq(d), "nil", "nil", str(i), '""', "false", gores(r))
                                            for (d, i), r in zip(cases, r1)])

    # #-.
    cases = [(d, p) for d in SET_DOCS for p in SET_PATHS + NULL_PATHS]
    r1 = ev(["%s::jsonb #- %s" % (lit(d), textarr(p)) for d, p in cases])
    emit("pgDeletePathCases", "editCase", [(goq(d), goslice(p), gonulls(p), "0", '""', "false", gores(r))
                                           for (d, p), r in zip(cases, r1)])

    # jsonb_set and jsonb_insert.
    nvs = ['"new"', '{"n":[1]}', 'null']
    cases = [(d, p, nvs[i % 3], flag) for i, (d, p) in enumerate((d, p) for d in SET_DOCS for p in SET_PATHS + NULL_PATHS)
             for flag in (False, True)]
    r1 = ev(["jsonb_set(%s::jsonb, %s, %s::jsonb, %s)" % (lit(d), textarr(p), lit(nv), f) for d, p, nv, f in cases])
    emit("pgSetCases", "editCase", [(goq(d), goslice(p), gonulls(p), "0", goq(nv), str(f).lower(), gores(r))
                                    for (d, p, nv, f), r in zip(cases, r1)])
    r1 = ev(["jsonb_insert(%s::jsonb, %s, %s::jsonb, %s)" % (lit(d), textarr(p), lit(nv), f) for d, p, nv, f in cases])
    emit("pgInsertCases", "editCase", [(goq(d), goslice(p), gonulls(p), "0", goq(nv), str(f).lower(), gores(r))
                                       for (d, p, nv, f), r in zip(cases, r1)])

    # One-argument functions.
    fns = {
        "typeof": "jsonb_typeof(%s::jsonb)",
        "strip_nulls": "jsonb_strip_nulls(%s::jsonb)",
        "array_length": "jsonb_array_length(%s::jsonb)",
        "pretty": "jsonb_pretty(%s::jsonb)",
        "object_keys": "(select jsonb_agg(k) from jsonb_object_keys(%s::jsonb) k)",
        "each": "(select jsonb_agg(jsonb_build_array(key, value)) from jsonb_each(%s::jsonb))",
        "each_text": "(select jsonb_agg(jsonb_build_array(key, value)) from jsonb_each_text(%s::jsonb))",
        "array_elements": "(select jsonb_agg(e) from jsonb_array_elements(%s::jsonb) e)",
        "array_elements_text": "(select jsonb_agg(e) from jsonb_array_elements_text(%s::jsonb) e)",
        "text": "%s::jsonb #>> '{}'",
    }
    docs = DOCS + PRETTY + ['{"a":null,"b":[null,{"c":null,"d":1}],"e":{"f":null}}', '[null,{"a":null}]',
                            '{"a":"x\\ny","b":"\\u0001"}']
    cases = [(f, d) for f in fns for d in docs]
    r1 = ev([fns[f] % lit(d) for f, d in cases])
    emit("pgFuncCases", "funcCase", [(goq(f), goq(d), gores(r)) for (f, d), r in zip(cases, r1)])

    # Order.
    script = "select v::text, dense_rank() over (order by v) from (values %s) t(v);" % ",".join(
        "(%s::jsonb)" % lit(v) for v in ORDER)
    rows = [l.split("|") for l in subprocess.run(["psql", "-X", "-A", "-t", "-c", script], capture_output=True,
                                                  check=True, text=True).stdout.splitlines() if l]
    rank = {}
    for text, rk in rows:
        rank[text] = int(rk)
    outs = ev(["%s::jsonb" % lit(v) for v in ORDER])
    emit("pgOrderCases", "orderCase", [(goq(v), str(rank[o[3:]])) for v, o in zip(ORDER, outs)])

    # Random values: normal form, order and containment.
    rng = random.Random(15)
    rvals = [rand_value(rng, 0) for _ in range(150)]
    outs = ev(["%s::jsonb" % lit(v) for v in rvals])
    script = "select v::text, dense_rank() over (order by v) from (values %s) t(v);" % ",".join(
        "(%s::jsonb)" % lit(v) for v in rvals)
    rank = {}
    for l in subprocess.run(["psql", "-X", "-A", "-t", "-F", "\x1f", "-c", script], capture_output=True,
                            check=True, text=True).stdout.split("\n"):
        if l:
            text, rk = l.rsplit("\x1f", 1)
            rank[text] = int(rk)
    emit("pgRandomOrderCases", "orderCase", [(goq(v), str(rank[o[3:]])) for v, o in zip(rvals, outs)])
    emit("pgRandomParseCases", "parseCase", [(goq(v), gores(o), "ok(%s)" % goq(v)) for v, o in zip(rvals, outs)])
    pairs = [(rng.choice(rvals), rng.choice(rvals)) for _ in range(400)]
    pairs += [(rvals[i], rvals[i]) for i in range(0, 150, 5)]
    r1 = ev(["%s::jsonb @> %s::jsonb" % (lit(a), lit(b)) for a, b in pairs])
    emit("pgRandomContainsCases", "containsCase", [(goq(a), goq(b), gobool(r)) for (a, b), r in zip(pairs, r1)])

    # Random edits of random values.
    steps = ['a', 'b', 'aa', '', 'c', '0', '1', '2', '-1', '-2', '-3', '5', ' 1', 'bb']
    recs = []
    for _ in range(600):
        op = rng.choice(['set', 'insert', 'delete_path', 'concat', 'path'])
        path = [rng.choice(steps) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.05 and path:
            path[rng.randrange(len(path))] = None
        recs.append((op, rng.choice(rvals), rng.choice(rvals), path, rng.random() < 0.5))

    def opexpr(op, a, b, p, f):
        a, b, p = lit(a) + '::jsonb', lit(b) + '::jsonb', textarr(p)
        return {'set': f"jsonb_set({a}, {p}, {b}, {f})", 'insert': f"jsonb_insert({a}, {p}, {b}, {f})",
                'delete_path': f"{a} #- {p}", 'concat': f"{a} || {b}", 'path': f"{a} #> {p}"}[op]
    r1 = ev([opexpr(*r) for r in recs])
    emit("pgRandomOpCases", "opCase", [(goq(op), goq(a), goq(b), goslice(p), gonulls(p), str(f).lower(), gores(r))
                                       for (op, a, b, p, f), r in zip(recs, r1)])

    # to_jsonb of numbers.
    r1 = ev(["to_jsonb(%s::numeric)" % lit(s) for s in NUMTEXT])
    emit("pgNumericCases", "numCase", [(goq(s), gores(r)) for s, r in zip(NUMTEXT, r1)])
    r1 = ev(["to_jsonb(%s::float8)" % lit(s) for s in FLOATTEXT])
    r2 = ev(["%s::float8::text" % lit(s) for s in FLOATTEXT])
    emit("pgFloatCases", "numCase", [(goq(t[3:]), gores(r)) for t, r in zip(r2, r1)])


if __name__ == "__main__":
    psql(EV)
    main()
