//go:build race

package alloccheck

// writes is the number of random DML statements: fewer under the race
// detector, which slows each (13 views' graphs) tenfold and more.
const writes = 25
