package pgwire

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestStartupReportsParameters(t *testing.T) {
	ts := startServer(t, Options{})
	c := connect(t, ts.addr)
	want := map[string]string{
		"server_version": "15.0", "server_encoding": "UTF8", "client_encoding": "UTF8",
		"DateStyle": "ISO, MDY", "IntervalStyle": "postgres", "TimeZone": "UTC",
		"integer_datetimes": "on", "standard_conforming_strings": "on",
		"application_name": "pgwire-test", "is_superuser": "on", "session_authorization": "u",
	}
	for k, v := range want {
		if c.params[k] != v {
			t.Errorf("parameter %s = %q, want %q", k, c.params[k], v)
		}
	}
	if c.key == nil || c.key.ProcessID == 0 || len(c.key.SecretKey) != 4 {
		t.Fatalf("BackendKeyData = %+v, want a pid and a 4-byte secret", c.key)
	}
	d := connect(t, ts.addr)
	if d.key.ProcessID == c.key.ProcessID {
		t.Errorf("two connections share pid %d", c.key.ProcessID)
	}
}

func TestEncryptionRequestsRefused(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.addr)
	for _, req := range []pgproto3.FrontendMessage{&pgproto3.SSLRequest{}, &pgproto3.GSSEncRequest{}} {
		c.send(req)
		var b [1]byte
		if _, err := io.ReadFull(c.nc, b[:]); err != nil || b[0] != 'N' {
			t.Fatalf("answer to %T = %q, %v; want 'N'", req, b[0], err)
		}
	}
	c.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
	c.readStartup()
	c.send(&pgproto3.Query{String: "SELECT 1"})
	if got := c.until(); got[1] != `DataRow "1"` {
		t.Fatalf("after SSL refusal: %v", got)
	}
}

// rawStartup sends a startup packet with the given version code.
func rawStartup(c *client, version uint32, params ...string) {
	var body []byte
	body = binary.BigEndian.AppendUint32(body, version)
	for _, p := range params {
		body = append(append(body, p...), 0)
	}
	body = append(body, 0)
	pkt := binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))
	if _, err := c.nc.Write(append(pkt, body...)); err != nil {
		c.t.Fatal(err)
	}
}

func TestUnsupportedProtocolVersion(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.addr)
	rawStartup(c, 2<<16, "user", "u")
	e := c.expectError()
	if e.Code != "0A000" || e.Severity != "FATAL" {
		t.Fatalf("got %s %s %q, want FATAL 0A000", e.Severity, e.Code, e.Message)
	}
	c.expectClosed()
}

func TestNewerMinorVersionIsNegotiatedDown(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.addr)
	rawStartup(c, 3<<16|2, "user", "u", "_pq_.fancy", "1")
	m, ok := c.recv().(*pgproto3.NegotiateProtocolVersion)
	if !ok || m.NewestMinorProtocol != 0 || len(m.UnrecognizedOptions) != 1 || m.UnrecognizedOptions[0] != "_pq_.fancy" {
		t.Fatalf("got %+v, want NegotiateProtocolVersion 0 [_pq_.fancy]", m)
	}
	c.readStartup()
}

func TestStartupErrors(t *testing.T) {
	ts := startServer(t, Options{})
	for _, tc := range []struct {
		name   string
		params []string
		code   string
	}{
		{"no user", []string{"database", "d"}, "28000"},
		{"backend refuses", []string{"user", "u", "database", "nodb"}, "3D000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, ts.addr)
			rawStartup(c, 3<<16, tc.params...)
			if e := c.expectError(); e.Code != tc.code || e.Severity != "FATAL" {
				t.Fatalf("got %s %s %q, want FATAL %s", e.Severity, e.Code, e.Message, tc.code)
			}
			c.expectClosed()
		})
	}
}

func TestMalformedStartupPacket(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts.addr)
	c.nc.Write([]byte{0, 0, 0, 9, 0, 3, 0, 0, 'u'}) // parameter without terminator
	if e := c.expectError(); e.Code != "08P01" {
		t.Fatalf("got %s %q, want 08P01", e.Code, e.Message)
	}
	c.expectClosed()
}
