package pgwire

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// encodeMessages returns the wire bytes of msgs.
func encodeMessages(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			panic(err)
		}
	}
	return b
}

// FuzzConnection feeds arbitrary bytes, after a valid startup, to a
// connection over net.Pipe. The connection must never panic the process
// and must end by itself, in bounded time, once the client goes away.
func FuzzConnection(f *testing.F) {
	f.Add(encodeMessages(&pgproto3.Query{String: "SELECT 1, 2; series 3"}, &pgproto3.Terminate{}))
	f.Add(encodeMessages(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int8, $2"}, &pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1, 0}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 9}, []byte("x")},
			ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{MaxRows: 1}, &pgproto3.Execute{}, &pgproto3.Sync{}))
	f.Add(encodeMessages(&pgproto3.Parse{Query: "series 4"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'},
		&pgproto3.Execute{MaxRows: 3}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Flush{}, &pgproto3.Sync{}))
	f.Add(encodeMessages(&pgproto3.Query{String: "fail"}, &pgproto3.Query{String: "boom"}))
	f.Add(encodeMessages(&pgproto3.Query{String: "types"}, &pgproto3.Parse{Query: "types"}, &pgproto3.Bind{ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{}, &pgproto3.Sync{}))
	f.Add(encodeMessages(&pgproto3.Query{String: "begin; sleep"}, &pgproto3.Query{String: "rollback"}))
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff, 'x'})
	f.Add([]byte{'B', 0, 0, 0, 12, 0, 0, 0, 1, 0, 1, 0, 0})
	f.Add([]byte{})
	startup := encodeMessages(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "fuzz"}})

	f.Fuzz(func(t *testing.T, data []byte) {
		srv := NewServer(&fakeBackend{maxSleep: 10 * time.Millisecond},
			Options{MaxMessageSize: 1 << 16, StartupTimeout: time.Second})
		defer srv.Close()
		client, server := net.Pipe()
		srv.startConn(server)
		drained := make(chan struct{})
		go func() { io.Copy(io.Discard, client); close(drained) }()
		client.SetWriteDeadline(time.Now().Add(2 * time.Second))
		client.Write(append(append([]byte(nil), startup...), data...))
		client.Close()
		<-drained
		for deadline := time.Now().Add(5 * time.Second); srv.liveConns() > 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the connection did not end after its client went away")
			}
		}
	})
}

// liveConns is the number of connection goroutines still running.
func (s *Server) liveConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
