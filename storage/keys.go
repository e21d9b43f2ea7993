package storage

import "encoding/binary"

// Key namespaces: the first byte of every Pebble key.
const (
	tablePrefix byte = 't' // 't' | tableID (4, BE) | vnode (2, BE) | memcmp(pk)
	metaPrefix  byte = 'm' // 'm' | meta key string
)

// tableKeyPrefixLen is the length of 't' | tableID | vnode.
const tableKeyPrefixLen = 1 + 4 + 2

// appendTablePrefix appends 't' | id, the prefix of all of a table's keys.
func appendTablePrefix(buf []byte, id uint32) []byte {
	return binary.BigEndian.AppendUint32(append(buf, tablePrefix), id)
}

// appendVnodePrefix appends 't' | id | vnode.
func appendVnodePrefix(buf []byte, id uint32, vnode uint16) []byte {
	return binary.BigEndian.AppendUint16(appendTablePrefix(buf, id), vnode)
}

// prefixEnd returns the smallest key greater than every key that starts
// with prefix (nil when there is none: prefix is all 0xFF). The result is
// freshly allocated.
func prefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// SetKeyTable rewrites the table id of key, a key of a table's rows, to
// id and returns it: the key of the same pk in table id, when its pk
// columns have the same types (and its DistKey the same columns).
func SetKeyTable(key []byte, id uint32) []byte {
	binary.BigEndian.PutUint32(key[1:5], id)
	return key
}
