// Package pgwire is the server side of the PostgreSQL frontend/backend
// protocol (version 3.0), built on pgx's pgproto3 message codecs. It knows
// nothing about SQL: it turns protocol messages into calls on a Session that
// the database implements (see Backend, Session, ResultWriter), and turns the
// Session's results and errors back into protocol messages.
//
// # Goroutines and ownership
//
// Server.Serve runs an accept loop in the caller's goroutine. Every accepted
// connection gets one goroutine (conn.serve) that owns the net.Conn, the
// pgproto3.Backend, the Session and all per-connection state (prepared
// statements, portals, transaction status): nothing else reads or writes
// them. Statements run synchronously on that goroutine, so a Session is never
// used concurrently.
//
// Two things reach into a connection from outside its goroutine, both under
// conn.mu:
//
//   - a CancelRequest, which arrives on a separate connection; it looks the
//     target up by (process id, secret key) in the Server's key table and
//     cancels the context of the statement running at that moment, if any
//     (the statement then fails with 57014);
//   - Server.Close, which cancels the server context (and with it every
//     statement context), and sets deadlines on every connection so that
//     blocked reads return at once and blocked writes within a grace period.
//
// Server.Close waits, through a WaitGroup, for every connection goroutine
// and every Serve loop; it is never called from a Session (that would wait
// for itself). A Session must return promptly once its context is cancelled.
//
// # Failure containment
//
// A panic in a connection goroutine (the Session's or our own) is recovered
// there: the client gets an XX000 error and only that connection is closed.
// A malformed or oversized message (Options.MaxMessageSize) closes only its
// connection, with a FATAL 08P01 where the protocol still allows one. I/O
// errors are logged at debug level and never sent to clients.
//
// # Protocol state
//
// The simple protocol (Query) streams results as the Session produces them.
// The extended protocol (Parse/Bind/Describe/Execute/Close/Sync/Flush) keeps
// named and unnamed statements and portals; an Execute with a row limit
// buffers the portal's whole result (encoded) and pages through it, sending
// PortalSuspended while rows remain. After an error every message up to the
// next Sync is discarded. The transaction status sent in ReadyForQuery comes
// from the Session when it implements TxStatuser, and is otherwise tracked
// from command tags (BEGIN → 'T', COMMIT/ROLLBACK → 'I', an error inside a
// block → 'E').
//
// COPY (copy.go) runs inside a statement, in either protocol: the Session
// asks its ResultWriter (CopyInWriter, CopyOutWriter) to switch modes. In
// copy-in the statement reads CopyData from the connection itself, on the
// connection's goroutine, until CopyDone or CopyFail (Flush and Sync are
// ignored); data left after a failed statement is discarded by the message
// loop. In copy-out each row is a CopyData and Complete sends CopyDone.
//
// Authentication is "trust" by default, or SCRAM-SHA-256 (scram.go) when
// Options.Password is set, and SCRAM-SHA-256-PLUS too over TLS (channel
// binding with tls-server-end-point: startTLS notes the hash of the
// certificate it served); startup.go calls it through the authenticator
// interface, within Options.StartupTimeout.
package pgwire
