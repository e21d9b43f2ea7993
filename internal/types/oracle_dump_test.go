package types

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// TestOracleDump is a scratch harness (removed before hand-off).
func TestOracleDump(t *testing.T) {
	f, err := os.Open("/tmp/oracle/cases.txt")
	if err != nil {
		t.Skip()
	}
	names := map[string]Type{}
	for _, ty := range []Type{TBool, TInt16, TInt32, TInt64, TFloat32, TFloat64, TNumeric, TDate, TTimestamp, TTimestampTZ, TInterval,
		{ID: IDNumeric, Precision: 5, Scale: 2}, {ID: IDNumeric, Precision: 3, Scale: 3}, {ID: IDNumeric, Precision: 4}, {ID: IDVarchar, Width: 3}} {
		names[ty.String()] = ty
	}
	names["numeric(4,0)"] = Type{ID: IDNumeric, Precision: 4}
	out, _ := os.Create("/tmp/oracle/mine.txt")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		tn, in, _ := strings.Cut(sc.Text(), "|")
		ty := names[tn]
		d, err := Parse(in, ty)
		if err != nil {
			fmt.Fprintf(out, "ERROR %s %s\n", pgerr.Code(err), err)
		} else {
			fmt.Fprintf(out, "%s\n", Format(d, ty))
		}
	}
}
