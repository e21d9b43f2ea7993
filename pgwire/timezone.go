package pgwire

import (
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/internal/types"
)

// ZoneSession may be implemented by a Session whose TimeZone setting can
// change (SET TIME ZONE). Values of type timestamptz then go out in text
// format as local times of the zone with their offsets (binary format
// stays UTC microseconds), text parameters of that type without an
// offset are read in it, and, as PostgreSQL reports its GUC_REPORT
// settings, a ParameterStatus TimeZone goes out before the ReadyForQuery
// that follows a change. Without it the zone is UTC.
type ZoneSession interface {
	// TimeZone is the session's time zone (nil: UTC).
	TimeZone() *types.Zone
}

// ZoneSetter may be implemented by a ZoneSession to take the TimeZone a
// client sets in its startup packet: a TimeZone parameter (libpq sends
// one for PGTZ, pgjdbc always does) or -c timezone=... in options. An
// error refuses the connection (FATAL), as in PostgreSQL.
type ZoneSetter interface {
	SetTimeZone(setting string) error
}

// startupZone applies the TimeZone of the startup parameters, if any.
func (c *conn) startupZone(params map[string]string) error {
	zs, ok := c.sess.(ZoneSetter)
	if !ok {
		return nil
	}
	setting, found := "", false
	for name, v := range params {
		if strings.EqualFold(name, "timezone") {
			setting, found = v, true
		}
	}
	if v, ok := optionSetting(params["options"], "timezone"); ok {
		setting, found = v, true
	}
	if !found {
		return nil
	}
	return zs.SetTimeZone(setting)
}

// optionSetting finds setting name in a startup options string, as
// "-c name=value", "-cname=value" or "--name=value" (arguments separated
// by spaces, a backslash escaping the next character); the last wins.
func optionSetting(options, name string) (string, bool) {
	var args []string
	var cur strings.Builder
	inArg := false
	for i := 0; i < len(options); i++ {
		ch := options[i]
		switch {
		case ch == '\\' && i+1 < len(options):
			i++
			cur.WriteByte(options[i])
			inArg = true
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(ch)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	value, found := "", false
	for i := 0; i < len(args); i++ {
		kv := ""
		switch a := args[i]; {
		case a == "-c" && i+1 < len(args):
			i++
			kv = args[i]
		case strings.HasPrefix(a, "-c"):
			kv = a[2:]
		case strings.HasPrefix(a, "--"):
			kv = a[2:]
		default:
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.EqualFold(strings.ReplaceAll(k, "-", "_"), name) {
			value, found = v, true
		}
	}
	return value, found
}

// zone is the session's time zone (nil: UTC).
func (c *conn) zone() *types.Zone {
	if zs, ok := c.sess.(ZoneSession); ok {
		return zs.TimeZone()
	}
	return nil
}

// reportZone sends ParameterStatus TimeZone when the session's zone is
// not the one the client was last told.
func (c *conn) reportZone() {
	if c.sess == nil {
		return
	}
	if name := c.zone().Name(); name != c.sentZone {
		c.send(&pgproto3.ParameterStatus{Name: "TimeZone", Value: name})
		c.sentZone = name
	}
}
