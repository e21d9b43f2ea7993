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
// row limit reads its rows from a RowSource when the Session opens one
// (PortalOpener); else it holds its whole result, encoded, and pages
// through it. A portal with a RowSource must be closed (closePortal).
type portal struct {
	stmt    *statement
	args    []types.Datum
	formats []int16 // per result column; nil: all text
	started bool
	done    bool
	rows    [][][]byte // buffered result rows not yet sent
	tag     string
	src     RowSource // the rows still to send, if read lazily
	cols    []Column  // the columns rows are encoded with
}

// stmt returns the prepared statement name. A named one the Session
// no longer has (a StatementKeeper's DEALLOCATE ended it) is closed and
// not found.
func (c *conn) stmt(name string) (*statement, bool) {
	st, ok := c.stmts[name]
	if !ok || name == "" {
		return st, ok
	}
	if k, isKeeper := c.sess.(StatementKeeper); isKeeper && !k.HasStatement(name) {
		delete(c.stmts, name)
		c.closePortalsOf(st)
		return nil, false
	}
	return st, true
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
	if _, ok := c.stmt(m.Name); ok && m.Name != "" {
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
	if k, ok := c.sess.(StatementKeeper); ok && m.Name != "" {
		if err := k.KeepStatement(m.Name, m.Query, st.params); err != nil {
			return c.extendedError(err)
		}
	}
	c.stmts[m.Name] = st
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) handleBind(m *pgproto3.Bind) error {
	st, ok := c.stmt(m.PreparedStatement)
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
	c.closePortal(m.DestinationPortal) // the unnamed portal is replaced
	c.portals[m.DestinationPortal] = &portal{stmt: st, args: args, formats: formats, cols: st.cols}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) handleDescribe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		st, ok := c.stmt(m.Name)
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
			return c.describeCursor(m.Name)
		}
		c.describeRows(p.stmt.cols, p.formats)
	default:
		return c.fatal(pgerr.New(pgerr.ProtocolViolation, "invalid DESCRIBE message subtype %d", m.ObjectType))
	}
	return nil
}

// describeCursor describes the Session's SQL cursor name, if it has one
// (CursorDescriber), in text format.
func (c *conn) describeCursor(name string) error {
	if cd, ok := c.sess.(CursorDescriber); ok && name != "" {
		if cols, ok := cd.DescribeCursor(name); ok {
			c.describeRows(cols, nil)
			return nil
		}
	}
	return c.extendedError(pgerr.New(pgerr.InvalidCursorName, "portal %q does not exist", name))
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
		if st, ok := c.stmt(m.Name); ok {
			delete(c.stmts, m.Name)
			c.closePortalsOf(st)
			if k, ok := c.sess.(StatementKeeper); ok && m.Name != "" {
				k.ForgetStatement(m.Name)
			}
		}
	case 'P':
		c.closePortal(m.Name)
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
			c.closePortal(name)
		}
	}
}

// closePortal removes a portal, releasing its rows.
func (c *conn) closePortal(name string) {
	if p, ok := c.portals[name]; ok {
		if p.src != nil {
			p.src.Close()
		}
		delete(c.portals, name)
	}
}

// closePortals closes every portal: at the end of a transaction (and of
// the connection), as PostgreSQL drops portals when their transaction
// ends.
func (c *conn) closePortals() {
	for name := range c.portals {
		c.closePortal(name)
	}
}

// handleSync ends an extended-protocol exchange. Outside a transaction
// block portals end with the implicit transaction.
func (c *conn) handleSync() error {
	c.ignoreTillSync = false
	if c.status() == 'I' {
		c.closePortals()
	}
	return c.readyForQuery()
}
