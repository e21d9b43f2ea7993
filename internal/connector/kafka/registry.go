package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/internal/pgerr"
)

// registryTimeout bounds one request to a schema registry.
const registryTimeout = 10 * time.Second

// Registry is a client of a Confluent schema registry's REST API, the
// three calls ENCODE AVRO needs: a subject's latest schema (CREATE of a
// source), a schema by id (a message written with a schema the source
// has not seen), and registering a schema under a subject (CREATE of a
// sink). It holds no goroutine and no state but its configuration: each
// call is one HTTP request per URL tried, bounded by its context and by
// registryTimeout. Safe for concurrent use.
type Registry struct {
	urls       []string
	user, pass string
	hc         *http.Client
}

// RegistrySchema is a schema as a registry stores it.
type RegistrySchema struct {
	ID     int
	Schema string
}

// ErrRegistryNotFound is the error of a subject, version or schema id
// the registry does not have (HTTP 404).
var ErrRegistryNotFound = errors.New("kafka: not found in the schema registry")

// ErrRegistryUnreachable wraps the error of a registry that did not
// answer at all (connection refused, timeout): a caller may retry.
var ErrRegistryUnreachable = errors.New("kafka: the schema registry is unreachable")

// RegistryError is an error answer of the registry: an HTTP status and
// the registry's own error code and message.
type RegistryError struct {
	URL     string
	Status  int
	Code    int
	Message string
}

func (e *RegistryError) Error() string {
	return fmt.Sprintf("schema registry %s: HTTP %d (error code %d): %s", e.URL, e.Status, e.Code, e.Message)
}

// Is makes a 404 answer ErrRegistryNotFound.
func (e *RegistryError) Is(target error) bool {
	return target == ErrRegistryNotFound && e.Status == http.StatusNotFound
}

// NewRegistry returns a client of the registry at urls (tried in order
// while one is unreachable), with HTTP basic authentication when user is
// set.
func NewRegistry(urls []string, user, pass string) *Registry {
	return &Registry{urls: urls, user: user, pass: pass, hc: &http.Client{Timeout: registryTimeout}}
}

// Latest returns the latest schema of subject. A schema of another type
// than Avro (PROTOBUF, JSON) is an error.
func (r *Registry) Latest(ctx context.Context, subject string) (RegistrySchema, error) {
	var out struct {
		ID         int    `json:"id"`
		Schema     string `json:"schema"`
		SchemaType string `json:"schemaType"`
	}
	if err := r.do(ctx, http.MethodGet, "/subjects/"+url.PathEscape(subject)+"/versions/latest", nil, &out); err != nil {
		return RegistrySchema{}, err
	}
	if out.SchemaType != "" && !strings.EqualFold(out.SchemaType, "AVRO") {
		return RegistrySchema{}, fmt.Errorf("kafka: subject %q holds a %s schema, not Avro", subject, out.SchemaType)
	}
	return RegistrySchema{ID: out.ID, Schema: out.Schema}, nil
}

// ByID returns the schema of id.
func (r *Registry) ByID(ctx context.Context, id int) (string, error) {
	var out struct {
		Schema string `json:"schema"`
	}
	if err := r.do(ctx, http.MethodGet, "/schemas/ids/"+strconv.Itoa(id), nil, &out); err != nil {
		return "", err
	}
	return out.Schema, nil
}

// Register registers schema under subject and returns its id (the id it
// already has when the subject holds it).
func (r *Registry) Register(ctx context.Context, subject, schema string) (int, error) {
	body, _ := json.Marshal(map[string]string{"schema": schema}) // strings: cannot fail
	var out struct {
		ID int `json:"id"`
	}
	if err := r.do(ctx, http.MethodPost, "/subjects/"+url.PathEscape(subject)+"/versions", body, &out); err != nil {
		return 0, err
	}
	return out.ID, nil
}

// do sends one request to the first URL that answers and decodes its
// JSON answer into out.
func (r *Registry) do(ctx context.Context, method, path string, body []byte, out any) error {
	var last error
	for _, base := range r.urls {
		err := r.doAt(ctx, strings.TrimRight(base, "/"), method, path, body, out)
		if !errors.Is(err, ErrRegistryUnreachable) {
			return err
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("%w: no URL", ErrRegistryUnreachable)
	}
	return last
}

func (r *Registry) doAt(ctx context.Context, base, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("kafka: schema registry URL %q: %w", base, err)
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	if r.user != "" {
		req.SetBasicAuth(r.user, r.pass)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRegistryUnreachable, base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("%w: %s: reading the answer: %v", ErrRegistryUnreachable, base, err)
	}
	if resp.StatusCode/100 != 2 {
		e := &RegistryError{URL: base, Status: resp.StatusCode, Message: strings.TrimSpace(string(data))}
		var answer struct {
			Code    int    `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(data, &answer) == nil && answer.Message != "" {
			e.Code, e.Message = answer.Code, answer.Message
		}
		return e
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("kafka: schema registry %s: an answer that is not JSON: %w", base, err)
	}
	return nil
}

// registryPGError turns an error of a registry call made at CREATE into
// the error a user sees: 08001 naming the URL when the registry did not
// answer, 42704 with a hint for a subject it lacks, 28000 when it
// refused the credentials, and 58030 otherwise.
func registryPGError(err error, subject string, urls []string) error {
	var re *RegistryError
	switch {
	case errors.Is(err, ErrRegistryUnreachable):
		e := pgerr.New(sqlstateConnection, "could not connect to the schema registry at %s: %v", strings.Join(urls, ", "), err)
		e.Hint = "Check schema.registry in ENCODE AVRO (...): the registry's URL, such as 'http://host:8081'."
		return e
	case errors.Is(err, ErrRegistryNotFound):
		e := pgerr.New(pgerr.UndefinedObject, "subject %q not found in the schema registry at %s", subject, strings.Join(urls, ", "))
		e.Hint = fmt.Sprintf("Register the topic's schema under subject %q first (the topic name strategy: <topic>-value, <topic>-key).", subject)
		return e
	case errors.As(err, &re) && (re.Status == http.StatusUnauthorized || re.Status == http.StatusForbidden):
		e := pgerr.New("28000", "the schema registry at %s refused the credentials: %s", re.URL, re.Message)
		e.Hint = "Set schema.registry.username and schema.registry.password in ENCODE AVRO (...)."
		return e
	case errors.As(err, &re) && re.Status == http.StatusConflict:
		return pgerr.New(pgerr.DatatypeMismatch, "the schema registry refused a schema for subject %q: %s", subject, re.Message)
	}
	var pe *pgerr.Error
	if errors.As(err, &pe) {
		return err
	}
	return pgerr.Wrap(err, pgerr.IOError, fmt.Sprintf("schema registry, subject %q", subject))
}

// RegistryReference is a reference of a schema (Protobuf's imports): the
// name it is imported by, and the subject and version that hold it.
type RegistryReference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// RegistrySchemaInfo is a schema of any type as the registry stores it,
// with its type ("" is Avro) and its references.
type RegistrySchemaInfo struct {
	ID         int                 `json:"id"`
	SchemaType string              `json:"schemaType"`
	Schema     string              `json:"schema"`
	References []RegistryReference `json:"references"`
}

// LatestInfo returns the latest schema of subject, of any type.
func (r *Registry) LatestInfo(ctx context.Context, subject string) (RegistrySchemaInfo, error) {
	return r.Version(ctx, subject, -1)
}

// Version returns version v of subject (-1: the latest), of any type.
func (r *Registry) Version(ctx context.Context, subject string, v int) (RegistrySchemaInfo, error) {
	ver := "latest"
	if v >= 0 {
		ver = strconv.Itoa(v)
	}
	var out RegistrySchemaInfo
	err := r.do(ctx, http.MethodGet, "/subjects/"+url.PathEscape(subject)+"/versions/"+ver, nil, &out)
	return out, err
}

// InfoByID returns the schema of id, of any type (its ID is id).
func (r *Registry) InfoByID(ctx context.Context, id int) (RegistrySchemaInfo, error) {
	var out RegistrySchemaInfo
	if err := r.do(ctx, http.MethodGet, "/schemas/ids/"+strconv.Itoa(id), nil, &out); err != nil {
		return RegistrySchemaInfo{}, err
	}
	out.ID = id
	return out, nil
}
