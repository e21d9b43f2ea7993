package kafka

import (
	"sort"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// Option keys of a Kafka source (RisingWave's names), and the keys the
// binder and the engine add to a relation's connector options.
const (
	OptTopic            = "topic"
	OptBootstrap        = "properties.bootstrap.server"
	OptStartupMode      = "scan.startup.mode"
	OptStartupMillis    = "scan.startup.timestamp.millis"
	optStartupTimestamp = "scan.startup.timestamp_millis" // RisingWave's older spelling
	// OptFormat and OptEncode hold the statement's FORMAT and ENCODE
	// words; OptEncodePrefix its ENCODE (...) options.
	OptFormat       = "format"
	OptEncode       = "encode"
	OptEncodePrefix = "encode."
	// OptStartOffsets is set by the engine at CREATE: each partition's
	// first offset, resolved once from the startup mode, so that a
	// partition with no committed offset starts at the same place after
	// any restart ("p:off,p:off"). Not a user option.
	OptStartOffsets = "streamdb.kafka.start.offsets"
	// OptInclude is set by the binder from the statement's INCLUDE
	// clause: the columns after the payload's, what each holds
	// (FormatIncludes). Not a user option.
	OptInclude = "streamdb.kafka.include"
	// ReservedPrefix starts the options streamdb adds itself; a user
	// cannot give them, and option listings leave them out.
	ReservedPrefix = "streamdb."
)

// Formats.
const (
	FormatPlain    = "plain"
	FormatUpsert   = "upsert"
	FormatDebezium = "debezium" // Debezium change events (debezium.go)
)

// Startup modes.
const (
	StartEarliest  = "earliest"
	StartLatest    = "latest"
	StartTimestamp = "timestamp"
)

// Options are a Kafka source's parsed connector options.
type Options struct {
	Topic   string
	Brokers []string
	// Startup is one of the Start* modes; StartMillis its time for
	// StartTimestamp.
	Startup     string
	StartMillis int64
	// StartOffsets are the resolved first offsets (OptStartOffsets), by
	// partition; a partition not in it starts at its earliest offset.
	StartOffsets map[int32]int64
	// Encode is "json" or "csv"; for CSV, Delimiter and WithoutHeader.
	Encode        string
	Delimiter     byte
	WithoutHeader bool
	// Upsert is FORMAT UPSERT: a message's key is its row's primary key
	// (the INCLUDE key column), its value the row, and a null value (a
	// tombstone) deletes the row of its key.
	Upsert bool
	// Include are the INCLUDE columns, after the payload's.
	Include []Include
	// Avro holds ENCODE AVRO's options and stored schemas (avro_options.go).
	Avro AvroOptions
	// Protobuf holds ENCODE PROTOBUF's options and stored schema
	// (protobuf_options.go).
	Protobuf ProtobufOptions
	// Debezium is FORMAT DEBEZIUM: each message is a change event of a
	// database's row, applied to the table by its primary key
	// (debezium.go).
	Debezium bool

	// modeSet: scan.startup.mode was given (keys are read sorted, so
	// before scan.startup.timestamp.millis, which alone implies
	// StartTimestamp).
	modeSet bool
}

// IsUpsert reports whether a Kafka relation's options say FORMAT UPSERT.
func IsUpsert(opts map[string]string) bool {
	return IsKafka(opts) && strings.EqualFold(strings.TrimSpace(opts[OptFormat]), FormatUpsert)
}

// IsDebezium reports whether a Kafka relation's options say FORMAT
// DEBEZIUM.
func IsDebezium(opts map[string]string) bool {
	return IsKafka(opts) && strings.EqualFold(strings.TrimSpace(opts[OptFormat]), FormatDebezium)
}

// IsKafka reports whether a relation's connector options name Kafka.
func IsKafka(opts map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(opts["connector"]), "kafka")
}

// ParseOptions checks and parses a Kafka source's options (22023 naming
// the option on a bad one).
func ParseOptions(opts map[string]string) (Options, error) {
	o := Options{Startup: StartEarliest, Encode: "json", Delimiter: ','}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := o.set(k, strings.TrimSpace(opts[k])); err != nil {
			return o, err
		}
	}
	switch {
	case o.Topic == "":
		return o, optionError(OptTopic, "", "A Kafka source needs topic = '...'.")
	case len(o.Brokers) == 0:
		return o, optionError(OptBootstrap, "", "A Kafka source needs properties.bootstrap.server = 'host:port'.")
	case o.Startup == StartTimestamp && o.StartMillis < 0:
		return o, optionError(OptStartupMillis, "", "scan.startup.mode = 'timestamp' needs scan.startup.timestamp.millis.")
	case o.Upsert && o.Encode != "json" && o.Encode != EncodeAvro && o.Encode != EncodeProtobuf:
		e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT UPSERT ENCODE %s is not supported", strings.ToUpper(o.Encode))
		e.Hint = "Use FORMAT UPSERT ENCODE JSON, AVRO or PROTOBUF."
		return o, e
	case o.Debezium && o.Encode != "json":
		e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT DEBEZIUM ENCODE %s is not supported", strings.ToUpper(o.Encode))
		e.Hint = "Use FORMAT DEBEZIUM ENCODE JSON."
		return o, e
	}
	if err := o.Protobuf.check(o.Encode, &o); err != nil || o.Encode == EncodeProtobuf {
		return o, err
	}
	return o, o.Avro.check(o.Encode)
}

func (o *Options) set(k, v string) error {
	var err error
	switch {
	case k == "connector":
	case k == OptTopic:
		o.Topic = v
	case k == OptBootstrap || k == "properties.bootstrap.servers":
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				o.Brokers = append(o.Brokers, b)
			}
		}
	case k == OptStartupMode:
		o.Startup, o.modeSet = strings.ToLower(v), true
		if o.Startup != StartEarliest && o.Startup != StartLatest && o.Startup != StartTimestamp {
			return optionError(k, v, "The startup modes are 'earliest', 'latest' and 'timestamp'.")
		}
		if o.Startup == StartTimestamp && o.StartMillis == 0 {
			o.StartMillis = -1
		}
	case k == OptStartupMillis || k == optStartupTimestamp:
		if o.StartMillis, err = strconv.ParseInt(v, 10, 64); err != nil || o.StartMillis < 0 {
			return optionError(k, v, "A time in milliseconds since 1970.")
		}
		if !o.modeSet {
			o.Startup = StartTimestamp
		}
	case k == OptFormat:
		switch strings.ToLower(v) {
		case FormatPlain:
		case FormatUpsert:
			o.Upsert = true
		case FormatDebezium:
			o.Debezium = true
		default:
			e := pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for a Kafka source yet", strings.ToUpper(v))
			e.Hint = "Use FORMAT PLAIN, UPSERT or DEBEZIUM."
			return e
		}
	case k == OptEncode:
		o.Encode = strings.ToLower(v)
		if o.Encode != "json" && o.Encode != "csv" && o.Encode != EncodeAvro && o.Encode != EncodeProtobuf {
			e := pgerr.New(pgerr.FeatureNotSupported, "ENCODE %s is not supported for a Kafka source", strings.ToUpper(v))
			e.Hint = "Use ENCODE JSON, CSV, AVRO or PROTOBUF."
			return e
		}
	case k == OptEncodePrefix+"delimiter":
		if len(v) != 1 {
			return optionError(k, v, "The CSV delimiter is one character.")
		}
		o.Delimiter = v[0]
	case k == OptEncodePrefix+"without_header":
		if o.WithoutHeader, err = strconv.ParseBool(v); err != nil {
			return optionError(k, v, "without_header is 'true' or 'false'.")
		}
	case k == OptStartOffsets:
		if o.StartOffsets, err = ParseStartOffsets(v); err != nil {
			return err
		}
	case k == OptInclude:
		if o.Include, err = ParseIncludes(v); err != nil {
			return err
		}
	default:
		if ok, err := o.Avro.set(k, v); ok {
			return err
		}
		if ok, err := o.Protobuf.set(k, v); ok {
			return err
		}
		e := pgerr.New(pgerr.InvalidParameterValue, "unrecognized Kafka connector option %q", k)
		e.Hint = "Kafka options: topic, properties.bootstrap.server, scan.startup.mode, scan.startup.timestamp.millis."
		return e
	}
	return nil
}

// FormatStartOffsets renders offsets for OptStartOffsets.
func FormatStartOffsets(offsets map[int32]int64) string {
	parts := make([]int32, 0, len(offsets))
	for p := range offsets {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(p), 10))
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(offsets[p], 10))
	}
	return b.String()
}

// ParseStartOffsets reads FormatStartOffsets' text.
func ParseStartOffsets(s string) (map[int32]int64, error) {
	out := map[int32]int64{}
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		ps, os, ok := strings.Cut(part, ":")
		p, err1 := strconv.ParseInt(ps, 10, 32)
		off, err2 := strconv.ParseInt(os, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, optionError(OptStartOffsets, s, "An internal option: partition:offset, ...")
		}
		out[int32(p)] = off
	}
	return out, nil
}

func optionError(key, value, hint string) error {
	e := pgerr.New(pgerr.InvalidParameterValue, "invalid value for connector option %q: %q", key, value)
	e.Hint = hint
	return e
}
