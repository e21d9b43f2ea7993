package pgwire

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The fake backend's COPY commands (see fakeBackend).

var fakeCopyCols = []Column{{"x", types.TText}}

func copyFormatArg(arg string) int16 {
	if strings.Contains(arg, "binary") {
		return binaryFormat
	}
	return textFormat
}

func fakeCopyIn(arg string, w ResultWriter) error {
	cw, ok := w.(CopyInWriter)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "no copy-in")
	}
	r, err := cw.CopyIn(fakeCopyCols, copyFormatArg(arg))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		if sc.Text() == "bad" {
			return pgerr.New(pgerr.InvalidTextRep, "bad line %d", n)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Complete(fmt.Sprintf("COPY %d", n))
}

func fakeCopyOut(arg string, w ResultWriter) error {
	cw, ok := w.(CopyOutWriter)
	if !ok {
		return pgerr.New(pgerr.FeatureNotSupported, "no copy-out")
	}
	n, _ := strconv.Atoi(strings.Fields(arg + " 0")[0])
	out, err := cw.CopyOut(fakeCopyCols, copyFormatArg(arg))
	if err != nil {
		return err
	}
	for i := range n {
		if _, err := fmt.Fprintf(out, "%d\n", i); err != nil {
			return err
		}
	}
	return w.Complete(fmt.Sprintf("COPY %d", n))
}
