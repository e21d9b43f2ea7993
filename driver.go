package streamdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"sync"
)

func init() {
	sql.Register("streamdb", &Driver{})
}

// Driver is the database/sql driver, registered as "streamdb". The data
// source name is the data directory ("" or ":memory:" for memory). Every
// sql.DB opened on the same directory shares one open DB.
type Driver struct{}

var shared struct {
	sync.Mutex
	dbs map[string]*sharedDB
}

type sharedDB struct {
	db   *DB
	refs int
}

// Open implements driver.Driver.
func (d *Driver) Open(name string) (driver.Conn, error) {
	c, err := d.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector implements driver.DriverContext.
func (d *Driver) OpenConnector(name string) (driver.Connector, error) {
	if name == "" || name == ":memory:" {
		db, err := Open(name, nil)
		if err != nil {
			return nil, err
		}
		return &connector{drv: d, db: db, own: true}, nil
	}
	shared.Lock()
	defer shared.Unlock()
	if shared.dbs == nil {
		shared.dbs = map[string]*sharedDB{}
	}
	s, ok := shared.dbs[name]
	if !ok {
		db, err := Open(name, nil)
		if err != nil {
			return nil, err
		}
		s = &sharedDB{db: db}
		shared.dbs[name] = s
	}
	s.refs++
	return &connector{drv: d, db: s.db, name: name}, nil
}

type connector struct {
	drv       *Driver
	db        *DB
	name      string
	own       bool
	closeOnce sync.Once
}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	return &conn{s: c.db.NewSession()}, nil
}

func (c *connector) Driver() driver.Driver { return c.drv }

// Close releases the DB when the last sql.DB using it closes.
func (c *connector) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.own {
			err = c.db.Close()
			return
		}
		shared.Lock()
		defer shared.Unlock()
		s := shared.dbs[c.name]
		s.refs--
		if s.refs == 0 {
			delete(shared.dbs, c.name)
			err = s.db.Close()
		}
	})
	return err
}

var _ io.Closer = (*connector)(nil)

// conn is one database/sql connection: a Session.
type conn struct{ s *Session }

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return &stmt{c: c, query: query}, nil
}

func (c *conn) Close() error { return nil }

// Begin starts a transaction block. streamdb has no multi-statement
// transactions yet: its statements each commit on their own, and Rollback
// reports an error when writes in the block could not be undone.
func (c *conn) Begin() (driver.Tx, error) {
	if _, err := c.s.Exec(context.Background(), "BEGIN"); err != nil {
		return nil, err
	}
	return &tx{s: c.s}, nil
}

func (c *conn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.s.Exec(ctx, query, namedArgs(args)...)
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(r.RowsAffected), nil
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.s.Query(ctx, query, namedArgs(args)...)
	if err != nil {
		return nil, err
	}
	return &rows{r: r}, nil
}

func namedArgs(args []driver.NamedValue) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

type tx struct{ s *Session }

func (t *tx) Commit() error {
	_, err := t.s.Exec(context.Background(), "COMMIT")
	return err
}

func (t *tx) Rollback() error {
	writes := t.s.s.TxWrites()
	if _, err := t.s.Exec(context.Background(), "ROLLBACK"); err != nil {
		return err
	}
	if writes > 0 {
		return fmt.Errorf("streamdb: rollback could not undo %d statement(s): each statement commits on its own", writes)
	}
	return nil
}

type stmt struct {
	c     *conn
	query string
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.query, valuesToNamed(args))
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.query, valuesToNamed(args))
}

func valuesToNamed(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// rows are a query's rows for database/sql: a SELECT's are pulled from
// its executor as database/sql asks for them.
type rows struct{ r *Rows }

func (r *rows) Columns() []string {
	out := make([]string, len(r.r.Columns))
	for i, c := range r.r.Columns {
		out[i] = c.Name
	}
	return out
}

func (r *rows) Close() error { return r.r.Close() }

func (r *rows) Next(dest []driver.Value) error {
	if !r.r.Next() {
		if err := r.r.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	for i, v := range r.r.Values() {
		dest[i] = v
	}
	return nil
}

// ColumnTypeDatabaseTypeName reports the Postgres type name of a column.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string {
	return r.r.Columns[i].Type
}
