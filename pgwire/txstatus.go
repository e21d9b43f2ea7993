package pgwire

import "strings"

// status returns the transaction status for ReadyForQuery: the Session's
// own when it implements TxStatuser, else the one tracked from tags.
func (c *conn) status() byte {
	if ts, ok := c.sess.(TxStatuser); ok {
		return ts.TxStatus()
	}
	return c.txStatus
}

// noteTag tracks the transaction status from a completed statement's tag.
func (c *conn) noteTag(tag string) {
	verb, _, _ := strings.Cut(tag, " ")
	switch strings.ToUpper(verb) {
	case "BEGIN", "START":
		c.txStatus = 'T'
	case "COMMIT", "ROLLBACK":
		c.txStatus = 'I'
	}
}

// noteError tracks that a statement failed: inside a block the
// transaction is now failed.
func (c *conn) noteError() {
	if c.txStatus == 'T' {
		c.txStatus = 'E'
	}
}
