//go:build race

package write_test

// raceEnabled scales the large COPY tests down under the race detector,
// which slows them tenfold.
const raceEnabled = true
