//go:build !invariants

package storage

import "github.com/cockroachdb/pebble/v2"

const invariants = false

func checkDisjoint([]*pebble.Batch) {}
