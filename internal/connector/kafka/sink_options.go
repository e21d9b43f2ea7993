package kafka

import (
	"sort"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Option keys of a Kafka sink (RisingWave's names) besides the source's
// topic, properties.bootstrap.server, format and encode.
const (
	OptPrimaryKey      = "primary_key"
	OptExactlyOnce     = "is_exactly_once"
	OptForceAppendOnly = "force_append_only"
	// OptTransactionalID names the sink's Kafka transactional id
	// (exactly once); by default streamdb-sink-<topic>-<sink name>.
	OptTransactionalID = "transactional.id"
	// OptSinkName is set by the engine: the sink's name, for its default
	// transactional id. Not a user option.
	OptSinkName = "streamdb.sink.name"
)

// Sink formats (FORMAT ... ENCODE JSON).
const (
	SinkPlain    = "plain"
	SinkUpsert   = "upsert"
	SinkDebezium = "debezium"
)

// SinkOptions are a Kafka sink's parsed connector options.
type SinkOptions struct {
	Topic   string
	Brokers []string
	// Format is one of the Sink* formats.
	Format string
	// PrimaryKey names the key columns of UPSERT and DEBEZIUM messages
	// (primary_key = 'a,b'); empty: the input's stream key.
	PrimaryKey []string
	// ExactlyOnce: each batch is one Kafka transaction that also commits
	// the batch's number (is_exactly_once = 'true').
	ExactlyOnce bool
	// ForceAppendOnly: a PLAIN sink over an input that updates and
	// deletes drops the deletes and sends an update's new row.
	ForceAppendOnly bool
	// TransactionalID is the exactly-once producer's id.
	TransactionalID string
	// Encode is "json" or "avro" (EncodeAvro); Avro holds ENCODE AVRO's
	// registry and the schemas registered at CREATE (avro_encode.go).
	Encode string
	Avro   AvroOptions
}

// ParseSinkOptions checks and parses a Kafka sink's options (22023
// naming the option on a bad one, 0A000 on a FORMAT or ENCODE not
// supported).
func ParseSinkOptions(opts map[string]string) (SinkOptions, error) {
	o := SinkOptions{Format: SinkPlain, Encode: "json"}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	name := ""
	for _, k := range keys {
		v := strings.TrimSpace(opts[k])
		if k == OptSinkName {
			name = v
			continue
		}
		if err := o.set(k, v); err != nil {
			return o, err
		}
	}
	switch {
	case o.Topic == "":
		return o, optionError(OptTopic, "", "A Kafka sink needs topic = '...'.")
	case len(o.Brokers) == 0:
		return o, optionError(OptBootstrap, "", "A Kafka sink needs properties.bootstrap.server = 'host:port'.")
	case o.ForceAppendOnly && o.Format != SinkPlain:
		return o, optionError(OptForceAppendOnly, "true", "force_append_only applies to FORMAT PLAIN only.")
	case o.Encode == EncodeAvro && o.Format == SinkDebezium:
		e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT DEBEZIUM ENCODE AVRO is not supported for a Kafka sink")
		e.Hint = "Use FORMAT PLAIN or UPSERT ENCODE AVRO, or FORMAT DEBEZIUM ENCODE JSON."
		return o, e
	}
	if err := o.Avro.check(o.Encode); err != nil {
		return o, err
	}
	if o.TransactionalID == "" {
		o.TransactionalID = "streamdb-sink-" + o.Topic + "-" + name
	}
	return o, nil
}

func (o *SinkOptions) set(k, v string) error {
	var err error
	switch k {
	case "connector":
	case OptTopic:
		o.Topic = v
	case OptBootstrap, "properties.bootstrap.servers":
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				o.Brokers = append(o.Brokers, b)
			}
		}
	case OptFormat:
		o.Format = strings.ToLower(v)
		if o.Format != SinkPlain && o.Format != SinkUpsert && o.Format != SinkDebezium {
			e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for a Kafka sink", strings.ToUpper(v))
			e.Hint = "Use FORMAT PLAIN, UPSERT or DEBEZIUM."
			return e
		}
	case OptEncode:
		o.Encode = strings.ToLower(v)
		if o.Encode != "json" && o.Encode != EncodeAvro {
			e := pgerr.New(pgerr.FeatureNotSupported, "ENCODE %s is not supported for a Kafka sink", strings.ToUpper(v))
			e.Hint = "Use ENCODE JSON or AVRO."
			return e
		}
	case OptPrimaryKey:
		for _, c := range strings.Split(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
				o.PrimaryKey = append(o.PrimaryKey, c)
			}
		}
		if len(o.PrimaryKey) == 0 {
			return optionError(k, v, "primary_key lists the key columns: 'a,b'.")
		}
	case OptExactlyOnce:
		if o.ExactlyOnce, err = strconv.ParseBool(v); err != nil {
			return optionError(k, v, "is_exactly_once is 'true' or 'false'.")
		}
	case OptForceAppendOnly:
		if o.ForceAppendOnly, err = strconv.ParseBool(v); err != nil {
			return optionError(k, v, "force_append_only is 'true' or 'false'.")
		}
	case OptTransactionalID:
		if v == "" {
			return optionError(k, v, "A non-empty Kafka transactional id.")
		}
		o.TransactionalID = v
	default:
		if ok, err := o.Avro.set(k, v); ok {
			return err
		}
		e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized Kafka sink option %q", k)
		e.Hint = "Kafka sink options: topic, properties.bootstrap.server, primary_key, is_exactly_once, force_append_only, transactional.id."
		return e
	}
	return nil
}

// SinkSource is the Kafka sink's topic as a Resolve of the source side
// sees it: enough to check at CREATE that the topic exists.
func (o SinkOptions) SinkSource() Options {
	return Options{Topic: o.Topic, Brokers: o.Brokers, Startup: StartLatest}
}
