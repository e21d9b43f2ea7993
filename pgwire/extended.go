package pgwire

import (
	"context"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// statement is a prepared statement of the extended protocol.
type statement struct {
	query  string
	params []types.Type
	cols   []Column // nil: returns no rows
	empty  bool     // the query text holds no statement
}

// portal is a bound statement, ready to execute. A portal executed with a
// row limit holds its whole result, encoded, and pages through it.
type portal struct {
	stmt    *statement
	args    []types.Datum
	formats []int16 // per result column; nil: all text
	started bool
	done    bool
	rows    [][][]byte // buffered result rows not yet sent
	tag     string
}

// extendedError reports err and discards messages until Sync.
func (c *conn) extendedError(err error) error {
	if c.statementFailed(err) {
		return errCloseConn
	}
	c.ignoreTillSync = true
	return nil
}

func (c *conn) handleParse(m *pgproto3.Parse) error {
	if _, ok := c.stmts[m.Name]; ok && m.Name != "" {
		return c.extendedError(pgerr.New("42P05", "prepared statement %q already exists", m.Name))
	}
	st := &statement{query: m.Query, empty: isEmptyQuery(m.Query)}
	ptypes := make([]types.Type, len(m.ParameterOIDs))
	for i, oid := range m.ParameterOIDs {
		t, err := typeForOID(oid)
		if err != nil {
			return c.extendedError(err)
		}
		ptypes[i] = t
	}
	st.params = ptypes
	if !st.empty {
		err := c.runStatement(func(ctx context.Context) error {
			var err error
			st.params, st.cols, err = c.sess.Prepare(ctx, m.Query, ptypes)
			return err
		})
		if err != nil {
			return c.extendedError(err)
		}
	}
	c.stmts[m.Name] = st
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) handleBind(m *pgproto3.Bind) error {
	st, ok := c.stmts[m.PreparedStatement]
	if !ok {
		return c.extendedError(pgerr.New(pgerr.InvalidSQLStatement, "prepared statement %q does not exist", m.PreparedStatement))
	}
	if _, ok := c.portals[m.DestinationPortal]; ok && m.DestinationPortal != "" {
		return c.extendedError(pgerr.New("42P03", "cursor %q already exists", m.DestinationPortal))
	}
	if len(m.Parameters) != len(st.params) {
		return c.extendedError(pgerr.New(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement %q requires %d",
			len(m.Parameters), m.PreparedStatement, len(st.params)))
	}
	args, err := c.decodeParams(m.ParameterFormatCodes, m.Parameters, st.params)
	if err != nil {
		return c.extendedError(err)
	}
	formats, err := resultFormats(m.ResultFormatCodes, len(st.cols))
	if err != nil {
		return c.extendedError(err)
	}
	c.portals[m.DestinationPortal] = &portal{stmt: st, args: args, formats: formats}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) handleDescribe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := c.stmts[m.Name]
		if !ok {
			return c.extendedError(pgerr.New(pgerr.InvalidSQLStatement, "prepared statement %q does not exist", m.Name))
		}
		oids := make([]uint32, len(st.params))
		for i, t := range st.params {
			oids[i] = paramOID(t)
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: oids})
		c.describeRows(st.cols, nil)
	case 'P':
		p, ok := c.portals[m.Name]
		if !ok {
			return c.extendedError(pgerr.New(pgerr.InvalidCursorName, "portal %q does not exist", m.Name))
		}
		c.describeRows(p.stmt.cols, p.formats)
	default:
		return c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType))
	}
	return nil
}

func (c *conn) describeRows(cols []Column, formats []int16) {
	if cols == nil {
		c.send(&pgproto3.NoData{})
		return
	}
	c.send(rowDescription(cols, formats))
}

func (c *conn) handleClose(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		if st, ok := c.stmts[m.Name]; ok {
			delete(c.stmts, m.Name)
			c.closePortalsOf(st)
		}
	case 'P':
		delete(c.portals, m.Name)
	default:
		return c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid CLOSE message subtype %d", m.ObjectType))
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// closePortalsOf closes the portals bound from st, as Postgres does when
// a statement is closed.
func (c *conn) closePortalsOf(st *statement) {
	for name, p := range c.portals {
		if p.stmt == st {
			delete(c.portals, name)
		}
	}
}

// handleSync ends an extended-protocol exchange. Outside a transaction
// block portals end with the implicit transaction.
func (c *conn) handleSync() error {
	c.ignoreTillSync = false
	if c.status() == 'I' {
		clear(c.portals)
	}
	return c.readyForQuery()
}
