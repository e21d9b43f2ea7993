//go:build race

package engine

// raceEnabled scales the large COPY tests down under the race detector,
// which slows them tenfold.
const raceEnabled = true
