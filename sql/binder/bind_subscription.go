package binder

import (
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/catalog"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql"
)

// DefaultRetention is a subscription's retention when its WITH names
// none (RisingWave's default is a day too).
const DefaultRetention = 24 * time.Hour

// bindCreateSubscription checks that the subscription follows a table or
// a materialized view and reads its retention: an interval ('1h',
// '30 minutes', '1D').
func (b *binder) bindCreateSubscription(s *sql.CreateSubscriptionStmt) (*planner.CreateSubscription, error) {
	name, err := b.creationName(s.Name)
	if err != nil {
		return nil, err
	}
	from, ok := b.lookupName(s.From)
	if !ok {
		err := pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", s.From)
		return nil, err.WithPosition(s.FromPos)
	}
	switch from.Kind {
	case catalog.KindTable, catalog.KindMaterializedView:
	default:
		err := pgerr.New(WrongObjectType, "%q is not a table or materialized view", s.From)
		err.Detail = "A subscription follows the changes of a table or a materialized view; " + s.From + " is " + withArticle(from.Kind) + "."
		return nil, err.WithPosition(s.FromPos)
	}
	cs := &planner.CreateSubscription{Name: name, IfNotExists: s.IfNotExists, From: from, Retention: DefaultRetention}
	for k, v := range s.With {
		switch k {
		case "retention":
			if cs.Retention, err = ParseRetention(v); err != nil {
				return nil, err
			}
		default:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized subscription option %q", k)
		}
	}
	return cs, nil
}

// ParseRetention reads a subscription's retention, an interval of
// PostgreSQL's input syntax ('1 hour', '1h', '1D'); months count as 30
// days. It must be positive.
func ParseRetention(v string) (time.Duration, error) {
	iv, err := types.ParseInterval(strings.TrimSpace(v))
	d := time.Duration(iv.Micros)*time.Microsecond + time.Duration(int64(iv.Days)+30*int64(iv.Months))*24*time.Hour
	if err != nil || d <= 0 {
		e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for option \"retention\": %q", v)
		e.Hint = "Give an interval, such as '1h', '30 minutes' or '1D'."
		return 0, e
	}
	return d, nil
}
