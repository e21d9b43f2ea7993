//go:build !race

package streamdb

const raceEnabled = false
