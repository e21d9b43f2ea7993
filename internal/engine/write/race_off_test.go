//go:build !race

package write_test

const raceEnabled = false
