package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hamba/avro/v2"
)

// schemaRegistry is a Confluent schema registry in the test: the REST
// calls streamdb makes (a subject's latest version, a schema by id,
// registering under a subject), ids from 1, and HTTP basic
// authentication when user is set. Close stops it: its URL then refuses
// connections, as a registry that is down.
type schemaRegistry struct {
	srv        *httptest.Server
	user, pass string

	mu       sync.Mutex
	schemas  []string         // id i+1
	subjects map[string][]int // versions' ids
	requests int
}

func newSchemaRegistry(t testing.TB, user, pass string) *schemaRegistry {
	r := &schemaRegistry{user: user, pass: pass, subjects: map[string][]int{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *schemaRegistry) url() string { return r.srv.URL }

// register adds schema under subject (its existing id if it is there)
// and returns its id.
func (r *schemaRegistry) register(subject, schema string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.subjects[subject] {
		if r.schemas[id-1] == schema {
			return id
		}
	}
	r.schemas = append(r.schemas, schema)
	id := len(r.schemas)
	r.subjects[subject] = append(r.subjects[subject], id)
	return id
}

func (r *schemaRegistry) latest(subject string) (int, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := r.subjects[subject]
	if len(ids) == 0 {
		return 0, "", false
	}
	id := ids[len(ids)-1]
	return id, r.schemas[id-1], true
}

func (r *schemaRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	r.mu.Unlock()
	if r.user != "" {
		if u, p, ok := req.BasicAuth(); !ok || u != r.user || p != r.pass {
			registryAnswer(w, http.StatusUnauthorized, map[string]any{"error_code": 40101, "message": "Unauthorized"})
			return
		}
	}
	path := strings.Trim(req.URL.Path, "/")
	parts := strings.Split(path, "/")
	switch {
	case req.Method == http.MethodGet && len(parts) == 4 && parts[0] == "subjects" && parts[2] == "versions" && parts[3] == "latest":
		id, schema, ok := r.latest(parts[1])
		if !ok {
			registryAnswer(w, http.StatusNotFound, map[string]any{"error_code": 40401, "message": "Subject '" + parts[1] + "' not found."})
			return
		}
		registryAnswer(w, http.StatusOK, map[string]any{"subject": parts[1], "id": id, "version": 1, "schema": schema})
	case req.Method == http.MethodGet && len(parts) == 3 && parts[0] == "schemas" && parts[1] == "ids":
		id, _ := strconv.Atoi(parts[2])
		r.mu.Lock()
		ok := id >= 1 && id <= len(r.schemas)
		var schema string
		if ok {
			schema = r.schemas[id-1]
		}
		r.mu.Unlock()
		if !ok {
			registryAnswer(w, http.StatusNotFound, map[string]any{"error_code": 40403, "message": "Schema " + parts[2] + " not found"})
			return
		}
		registryAnswer(w, http.StatusOK, map[string]any{"schema": schema})
	case req.Method == http.MethodPost && len(parts) == 3 && parts[0] == "subjects" && parts[2] == "versions":
		var body struct{ Schema string }
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			registryAnswer(w, http.StatusUnprocessableEntity, map[string]any{"error_code": 42201, "message": err.Error()})
			return
		}
		if _, err := avro.Parse(body.Schema); err != nil {
			registryAnswer(w, http.StatusUnprocessableEntity, map[string]any{"error_code": 42201, "message": err.Error()})
			return
		}
		registryAnswer(w, http.StatusOK, map[string]any{"id": r.register(parts[1], body.Schema)})
	default:
		registryAnswer(w, http.StatusNotFound, map[string]any{"error_code": 404, "message": "HTTP 404 Not Found"})
	}
}

func registryAnswer(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// avroMessage is v encoded with schema in the Confluent wire format
// naming id.
func avroMessage(t testing.TB, id int, schema string, v any) []byte {
	t.Helper()
	s, err := avro.ParseWithCache(schema, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	body, err := avro.Marshal(s, v)
	if err != nil {
		t.Fatalf("encoding %v: %v", v, err)
	}
	return append([]byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}, body...)
}

// avroDecode decodes a wire-format message with the registry's schema
// of the id it names.
func (r *schemaRegistry) decode(t testing.TB, msg []byte) map[string]any {
	t.Helper()
	if len(msg) < 5 || msg[0] != 0 {
		t.Fatalf("not the Confluent wire format: %x", msg)
	}
	id := int(msg[1])<<24 | int(msg[2])<<16 | int(msg[3])<<8 | int(msg[4])
	r.mu.Lock()
	schema := r.schemas[id-1]
	r.mu.Unlock()
	s, err := avro.ParseWithCache(schema, "", &avro.SchemaCache{})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := avro.Unmarshal(s, msg[5:], &m); err != nil {
		t.Fatalf("decoding a message of schema %d: %v", id, err)
	}
	return m
}

func (r *schemaRegistry) String() string { return fmt.Sprintf("registry %s", r.url()) }
