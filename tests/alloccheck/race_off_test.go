//go:build !race

package alloccheck

// writes is the number of random DML statements (see race_on_test.go).
const writes = 120
