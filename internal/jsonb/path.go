package jsonb

import (
	"math"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// The path-changing functions (#-, jsonb_set, jsonb_insert) follow
// PostgreSQL's setPath, setPathObject and setPathArray.

type pathOp uint8

const (
	opReplace pathOp = iota // jsonb_set, create_missing false
	opCreate                // jsonb_set, create_missing true
	opInsertBefore
	opInsertAfter
	opDelete
)

func (op pathOp) createOrInsert() bool {
	return op == opCreate || op == opInsertBefore || op == opInsertAfter
}

type pathEdit struct {
	path  []string
	nulls []bool // nil: no NULL elements
	nv    Value
	op    pathOp
}

// NullPathElementError is PostgreSQL's error for a NULL element of a path
// at (1-based) position pos: 22004 "path element at position N is null".
func NullPathElementError(pos int) error {
	return pgerr.New(pgerr.NullValueNotAllowed, "path element at position %d is null", pos)
}

func checkNulls(path []string, nulls []bool) {
	if nulls != nil && len(nulls) != len(path) {
		panic("jsonb: path and nulls of different lengths")
	}
}

// DeletePath returns v #- path: v without the member the path leads to
// (keys of objects, integer indexes of arrays, negative from the end); v
// unchanged when there is none. A scalar is an error, and so is a
// non-integer step that meets an array.
func (v Value) DeletePath(path []string) (Value, error) {
	return v.DeletePathNulls(path, nil)
}

// DeletePathNulls is DeletePath for a path with NULL elements (nulls[i]
// true; nulls may be nil). As in PostgreSQL a NULL element is an error
// only where the path reaches it.
func (v Value) DeletePathNulls(path []string, nulls []bool) (Value, error) {
	checkNulls(path, nulls)
	if v.IsScalar() {
		return Value{}, invalidParam("cannot delete path in scalar")
	}
	if len(v.c.vals) == 0 || len(path) == 0 {
		return v, nil
	}
	e := pathEdit{path: path, nulls: nulls, op: opDelete}
	return e.setPath(v, 0)
}

// Set returns jsonb_set(v, path, nv, createMissing): v with the member the
// path leads to replaced by nv, or, with createMissing, added when only
// the last step is missing (a new key; for an array an index past either
// end adds at that end). A scalar is an error.
func (v Value) Set(path []string, nv Value, createMissing bool) (Value, error) {
	return v.SetNulls(path, nil, nv, createMissing)
}

// SetNulls is Set for a path with NULL elements (see DeletePathNulls).
func (v Value) SetNulls(path []string, nulls []bool, nv Value, createMissing bool) (Value, error) {
	checkNulls(path, nulls)
	if v.IsScalar() {
		return Value{}, invalidParam("cannot set path in scalar")
	}
	if (len(v.c.vals) == 0 && !createMissing) || len(path) == 0 {
		return v, nil
	}
	e := pathEdit{path: path, nulls: nulls, nv: nv, op: opReplace}
	if createMissing {
		e.op = opCreate
	}
	return e.setPath(v, 0)
}

// Insert returns jsonb_insert(v, path, nv, after): v with nv inserted
// before (or after) the array element the path leads to, or added as a
// new key of an object (an existing key is an error). A scalar is an
// error.
func (v Value) Insert(path []string, nv Value, after bool) (Value, error) {
	return v.InsertNulls(path, nil, nv, after)
}

// InsertNulls is Insert for a path with NULL elements (see
// DeletePathNulls).
func (v Value) InsertNulls(path []string, nulls []bool, nv Value, after bool) (Value, error) {
	checkNulls(path, nulls)
	if v.IsScalar() {
		return Value{}, invalidParam("cannot set path in scalar")
	}
	if len(path) == 0 {
		return v, nil
	}
	e := pathEdit{path: path, nulls: nulls, nv: nv, op: opInsertBefore}
	if after {
		e.op = opInsertAfter
	}
	return e.setPath(v, 0)
}

func (e *pathEdit) setPath(v Value, level int) (Value, error) {
	if e.nulls != nil && e.nulls[level] {
		return Value{}, NullPathElementError(level + 1)
	}
	switch v.kind {
	case Array:
		return e.setPathArray(v, level)
	case Object:
		return e.setPathObject(v, level)
	}
	return v, nil
}

func (e *pathEdit) setPathObject(v Value, level int) (Value, error) {
	keys, vals := v.c.keys, v.c.vals
	key := e.path[level]
	last := level == len(e.path)-1
	nk := make([]string, 0, len(keys)+1)
	nv := make([]Value, 0, len(keys)+1)
	if len(keys) == 0 && e.op.createOrInsert() && last {
		nk, nv = append(nk, key), append(nv, e.nv)
	}
	done := false
	for i, k := range keys {
		if !done && k == key {
			done = true
			if last {
				if e.op == opInsertBefore || e.op == opInsertAfter {
					err := invalidParam("cannot replace existing key")
					err.Hint = "Try using the function jsonb_set to replace key value."
					return Value{}, err
				}
				if e.op != opDelete {
					nk, nv = append(nk, k), append(nv, e.nv)
				}
			} else {
				c, err := e.setPath(vals[i], level+1)
				if err != nil {
					return Value{}, err
				}
				nk, nv = append(nk, k), append(nv, c)
			}
			continue
		}
		if e.op.createOrInsert() && !done && last && i == len(keys)-1 {
			nk, nv = append(nk, key), append(nv, e.nv)
		}
		nk, nv = append(nk, k), append(nv, vals[i])
	}
	nk, nv = normalizeObject(nk, nv)
	return newObject(nk, nv), nil
}

func (e *pathEdit) setPathArray(v Value, level int) (Value, error) {
	elems := v.c.vals
	n := int64(len(elems))
	idx, ok := strToInt(e.path[level])
	if !ok {
		return Value{}, pgerr.New(pgerr.InvalidTextRep, "path element at position %d is not an integer: \"%s\"", level+1, e.path[level])
	}
	if idx < 0 {
		if -idx > n {
			idx = math.MinInt32
		} else {
			idx += n
		}
	}
	if idx > 0 && idx > n {
		idx = n
	}
	last := level == len(e.path)-1
	out := make([]Value, 0, n+1)
	done := false
	if (idx == math.MinInt32 || n == 0) && last && e.op.createOrInsert() {
		out = append(out, e.nv)
		done = true
	}
	for i, el := range elems {
		if int64(i) != idx {
			out = append(out, el)
			continue
		}
		done = true
		if !last {
			c, err := e.setPath(el, level+1)
			if err != nil {
				return Value{}, err
			}
			out = append(out, c)
			continue
		}
		switch e.op {
		case opCreate, opReplace:
			out = append(out, e.nv)
		case opInsertBefore:
			out = append(out, e.nv, el)
		case opInsertAfter:
			out = append(out, el, e.nv)
		}
	}
	if e.op.createOrInsert() && !done && last {
		out = append(out, e.nv)
	}
	return newArray(out), nil
}
