package kafka

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamdb/streamdb/internal/jsonb"
	"github.com/streamdb/streamdb/internal/pgerr"
	"github.com/streamdb/streamdb/internal/types"
)

// The parts of a message an INCLUDE clause can add as columns
// (RisingWave's names).
const (
	IncludeKey       = "key"
	IncludePartition = "partition"
	IncludeOffset    = "offset"
	IncludeTimestamp = "timestamp"
	IncludeHeader    = "header"
)

// Include is one INCLUDE column: a part of the message besides its value.
// The columns of a Kafka relation are its payload columns (the decoder's),
// then its INCLUDE columns in the order written, then the hidden row id
// if it has no primary key.
type Include struct {
	Kind string `json:"kind"`
	// Header, for INCLUDE header 'name', is the header whose value the
	// column holds (the last one of that name); "" for all of them.
	Header string `json:"header,omitempty"`
	// Text: the header's value is varchar rather than bytea.
	Text bool `json:"text,omitempty"`
}

// IncludeColumn checks an INCLUDE item (kind, header name and type as
// written, typeName "" when none) and returns its column's default name
// and its type, as RisingWave types them: key bytea, partition and
// offset varchar, timestamp timestamptz. All the headers, a list of
// (key varchar, value bytea) structs in RisingWave, are a jsonb array of
// {"key": ..., "value": ...} objects here (streamdb has no struct type;
// see headersJSON); one header's value is bytea, or varchar when the
// type says so.
func IncludeColumn(kind, header, typeName string) (Include, string, types.Type, error) {
	in := Include{Kind: strings.ToLower(kind), Header: header}
	if typeName != "" && (in.Kind != IncludeHeader || header == "") {
		return in, "", types.Type{}, pgerr.New(pgerr.SyntaxError, "INCLUDE %s takes no type", in.Kind)
	}
	switch in.Kind {
	case IncludeKey:
		return in, "_kafka_key", types.TBytea, nil
	case IncludePartition:
		return in, "_kafka_partition", types.TVarchar, nil
	case IncludeOffset:
		return in, "_kafka_offset", types.TVarchar, nil
	case IncludeTimestamp:
		return in, "_kafka_timestamp", types.TTimestampTZ, nil
	case IncludeHeader:
		if header == "" {
			return in, "_kafka_header", types.TJSONB, nil
		}
		name := "_kafka_header_" + header
		switch strings.ToLower(typeName) {
		case "", "bytea":
			return in, name, types.TBytea, nil
		case "varchar", "text", "character varying":
			in.Text = true
			return in, name, types.TVarchar, nil
		}
		e := pgerr.New(pgerr.FeatureNotSupported, "a Kafka header's value is bytea or varchar, not %s", typeName)
		return in, "", types.Type{}, e
	}
	e := pgerr.New(pgerr.FeatureNotSupported, "INCLUDE %s is not supported for a Kafka source", kind)
	e.Hint = "A Kafka source includes key, partition, offset, timestamp and header."
	return in, "", types.Type{}, e
}

// FormatIncludes renders includes for OptInclude.
func FormatIncludes(in []Include) string {
	b, _ := json.Marshal(in) // a slice of plain structs: cannot fail
	return string(b)
}

// ParseIncludes reads FormatIncludes' text.
func ParseIncludes(s string) ([]Include, error) {
	var in []Include
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, optionError(OptInclude, s, "An internal option: the INCLUDE columns.")
	}
	for _, i := range in {
		if _, _, _, err := IncludeColumn(i.Kind, i.Header, ""); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// value returns the column's value for rec.
func (in Include) value(rec *kgo.Record) types.Datum {
	switch in.Kind {
	case IncludeKey:
		if rec.Key == nil {
			return nil
		}
		return string(rec.Key)
	case IncludePartition:
		return strconv.FormatInt(int64(rec.Partition), 10)
	case IncludeOffset:
		return strconv.FormatInt(rec.Offset, 10)
	case IncludeTimestamp:
		return types.Timestamp(rec.Timestamp.UnixMicro())
	}
	if in.Header == "" {
		return headersJSON(rec.Headers)
	}
	var v types.Datum
	for _, h := range rec.Headers {
		if h.Key == in.Header && h.Value != nil {
			v = string(h.Value)
		} else if h.Key == in.Header {
			v = nil
		}
	}
	if s, ok := v.(string); ok && in.Text && !utf8.ValidString(s) {
		return nil // not text: a varchar cannot hold it
	}
	return v
}

// headersJSON renders a message's headers, in order and with repeats, as
// a jsonb array of {"key": name, "value": value} objects. A value is
// JSON text when it is valid UTF-8 without NUL (most headers are text),
// else the bytea text form of its bytes ("\\x" and hex digits), and null
// when the header has none. No headers: an empty array.
func headersJSON(hs []kgo.RecordHeader) types.Datum {
	type header struct {
		Key   string  `json:"key"`
		Value *string `json:"value"`
	}
	out := make([]header, len(hs))
	for i, h := range hs {
		out[i].Key = strings.ToValidUTF8(h.Key, "\uFFFD")
		if h.Value == nil {
			continue
		}
		v := string(h.Value)
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 { // jsonb strings hold no NUL
			v = `\x` + hex.EncodeToString(h.Value)
		}
		out[i].Value = &v
	}
	b, _ := json.Marshal(out) // strings only: cannot fail
	v, err := jsonb.Parse(string(b))
	if err != nil {
		return string(b)
	}
	return v.String()
}
