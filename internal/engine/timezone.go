package engine

import (
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/pgwire"
)

// The session time zone: SET TimeZone (SET TIME ZONE ..., RESET, LOCAL,
// DEFAULT, set_config('TimeZone', ...)) checks the value as PostgreSQL
// does and keeps the zone (types.LoadZone); the "timezone" variable holds
// its name as SHOW TimeZone and current_setting('TimeZone') report it.
// Statements bind in the zone (sessionCatalog.TimeZone), a materialized
// view keeps the zone it was created under (catalog.Relation.TimeZone),
// and results print in the session's zone: pgwire asks TimeZone, and
// Rows.Text and COPY use it.

// setTimeZone sets the TimeZone setting to value, or to its default.
func (s *Session) setTimeZone(value string, def bool) error {
	if def {
		value = defaultVars()["timezone"]
	}
	z, err := types.LoadZone(value)
	if err != nil {
		return err
	}
	s.zone = z
	if z.IsUTC() && z.Name() == "UTC" {
		s.zone = nil
	}
	s.vars["timezone"] = z.Name()
	return nil
}

// SetTimeZone implements pgwire.ZoneSetter: the TimeZone a client sets
// when it connects.
func (s *Session) SetTimeZone(setting string) error { return s.setTimeZone(setting, false) }

// TimeZone is the session's time zone (nil: UTC). It implements
// pgwire.ZoneSession: timestamptz values go out in text format in it.
func (s *Session) TimeZone() *types.Zone { return s.zone }

// TimeZone implements catalog.ZoneReader: statements bind in the
// session's zone.
func (c sessionCatalog) TimeZone() *types.Zone { return c.zone }

// TimeZone implements catalog.ZoneReader: a stored view binds in the zone
// it was created under.
func (c pathCatalog) TimeZone() *types.Zone { return c.zone }

// storedZone loads the TimeZone a view was created under ("": UTC).
func storedZone(setting string) (*types.Zone, error) {
	if setting == "" {
		return nil, nil
	}
	return types.LoadZone(setting)
}

// settingNames are the settings whose name SHOW prints in mixed case, as
// PostgreSQL's GUC names them.
var settingNames = map[string]string{"timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"}

// settingName is the name SHOW gives setting name (lower case).
func settingName(name string) string {
	if n, ok := settingNames[name]; ok {
		return n
	}
	return name
}

var (
	_ pgwire.ZoneSession = (*Session)(nil)
	_ pgwire.ZoneSetter  = (*Session)(nil)
)
