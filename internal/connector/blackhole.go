package connector

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Blackhole is RisingWave's test sink (CREATE SINK ... WITH (connector =
// 'blackhole')): it consumes its input's changes, as every sink does
// (backfill included), and drops them.
const Blackhole = "blackhole"

// Sink type options, RisingWave's older spelling of FORMAT: type =
// 'append-only' is FORMAT PLAIN, 'upsert' FORMAT UPSERT, 'debezium'
// FORMAT DEBEZIUM.
const (
	OptSinkType        = "type"
	SinkAppendOnly     = "append-only"
	SinkUpsert         = "upsert"
	SinkDebezium       = "debezium"
	OptForceAppendOnly = "force_append_only"
)

// IsBlackhole reports whether a sink's options name the blackhole
// connector.
func IsBlackhole(opts map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(opts["connector"]), Blackhole)
}

// BlackholeOptions are a blackhole sink's options.
type BlackholeOptions struct {
	// Type is SinkAppendOnly, SinkUpsert or SinkDebezium ("" when not
	// given).
	Type string
	// ForceAppendOnly: an append-only sink over an input that updates
	// and deletes is accepted (RisingWave drops the deletes).
	ForceAppendOnly bool
}

// AppendOnly reports whether the sink must refuse an input that updates
// or deletes.
func (o BlackholeOptions) AppendOnly() bool { return o.Type == SinkAppendOnly && !o.ForceAppendOnly }

// ParseBlackholeOptions checks a blackhole sink's options (22023 naming
// a bad one). primary_key is accepted and unused, as in RisingWave.
func ParseBlackholeOptions(opts map[string]string) (BlackholeOptions, error) {
	var o BlackholeOptions
	for k, v := range opts {
		v = strings.TrimSpace(v)
		switch k {
		case "connector", "primary_key":
		case OptSinkType:
			o.Type = strings.ToLower(v)
			if !ValidSinkType(o.Type) {
				return o, sinkOptionError(k, v, "type is 'append-only', 'upsert' or 'debezium'.")
			}
		case OptForceAppendOnly:
			var err error
			if o.ForceAppendOnly, err = strconv.ParseBool(v); err != nil {
				return o, sinkOptionError(k, v, "force_append_only is 'true' or 'false'.")
			}
		default:
			e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized blackhole sink option %q", k)
			e.Hint = "Blackhole sink options: type, force_append_only, primary_key."
			return o, e
		}
	}
	if o.ForceAppendOnly && o.Type != "" && o.Type != SinkAppendOnly {
		return o, sinkOptionError(OptForceAppendOnly, "true", "force_append_only applies to type = 'append-only' only.")
	}
	return o, nil
}

// ValidSinkType reports whether t (lower case) is a sink type.
func ValidSinkType(t string) bool { return t == SinkAppendOnly || t == SinkUpsert || t == SinkDebezium }

func sinkOptionError(key, value, hint string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for connector option %q: %q", key, value)
	e.Hint = hint
	return e
}
