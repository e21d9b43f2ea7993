package dashboard

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeSource answers with fixed values; closed makes it fail as a closed
// database does.
type fakeSource struct {
	closed bool
	hist   *History
}

func (f fakeSource) err() error {
	if f.closed {
		return ErrClosed
	}
	return nil
}

func (f fakeSource) Jobs() ([]Job, error) {
	return []Job{{Name: "v", Row: map[string]any{"id": 1, "statement": "<script>"}}}, f.err()
}
func (f fakeSource) Views() ([]View, error) { return []View{{Name: "v"}}, f.err() }
func (f fakeSource) Graph(name string) (*Graph, bool, error) {
	if name != "v" {
		return nil, false, f.err()
	}
	return &Graph{View: "v"}, true, f.err()
}
func (f fakeSource) History(since int64) (*HistoryReply, error) { return f.hist.Reply(since), f.err() }
func (f fakeSource) Events() (*Events, error)                   { return &Events{}, f.err() }

func get(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}

func TestHandlerRoutes(t *testing.T) {
	h := Handler(fakeSource{hist: NewHistory(4, time.Second)})
	for _, c := range []struct {
		path, ctype string
		code        int
	}{
		{"/", "text/html; charset=utf-8", 200},
		{"/assets/app.js", "text/javascript; charset=utf-8", 200},
		{"/assets/style.css", "text/css; charset=utf-8", 200},
		{"/api/jobs", "application/json", 200},
		{"/api/views", "application/json", 200},
		{"/api/graph?view=v", "application/json", 200},
		{"/api/graph?view=w", "", 404},
		{"/api/graph", "", 400},
		{"/api/history?since=5", "application/json", 200},
		{"/api/events", "application/json", 200},
		{"/nothing", "", 404},
	} {
		rec := get(h, c.path)
		if rec.Code != c.code || c.ctype != "" && rec.Header().Get("Content-Type") != c.ctype {
			t.Errorf("%s: %d %q, want %d %q", c.path, rec.Code, rec.Header().Get("Content-Type"), c.code, c.ctype)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", c.path)
		}
	}
	if csp := get(h, "/").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/jobs", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST api/jobs: %d", rec.Code)
	}
	closed := Handler(fakeSource{closed: true, hist: NewHistory(4, time.Second)})
	if rec := get(closed, "/api/jobs"); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("closed api/jobs: %d", rec.Code)
	}
}

// TestHandlerUnderPrefix: mounted under a prefix, the page and its API
// are served there, and the prefix without its slash redirects to it.
func TestHandlerUnderPrefix(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/ops/dash/", http.StripPrefix("/ops/dash", Handler(fakeSource{hist: NewHistory(4, time.Second)})))
	mux.Handle("/ops/dash", http.StripPrefix("/ops/dash", Handler(fakeSource{hist: NewHistory(4, time.Second)})))
	for _, p := range []string{"/ops/dash/", "/ops/dash/api/jobs", "/ops/dash/assets/app.js"} {
		if rec := get(mux, p); rec.Code != 200 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	rec := get(mux, "/ops/dash?x=1")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/ops/dash/?x=1" {
		t.Errorf("/ops/dash: %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

// TestPageUsesRelativeURLsAndText: the page asks for nothing by an
// absolute path or from another origin, and never writes markup from
// data.
func TestPageUsesRelativeURLsAndText(t *testing.T) {
	for _, name := range []string{"assets/index.html", "assets/app.js", "assets/style.css"} {
		b, err := fs.ReadFile(assets, name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
			`href="/`, `src="/`, `fetch("/`, "http://", "https://"} {
			if bad == "http://" && strings.Count(s, "http://") == strings.Count(s, "http://www.w3.org/2000/svg") {
				continue
			}
			if strings.Contains(s, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
		if regexp.MustCompile(`\bstyle="`).MatchString(s) {
			t.Errorf("%s has an inline style (the CSP forbids it)", name)
		}
	}
}

func TestHistoryRing(t *testing.T) {
	h := NewHistory(3, time.Second)
	if got := h.Since(0); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
	for i := int64(1); i <= 5; i++ {
		h.Add(Sample{T: i})
	}
	ts := func(ss []Sample) []int64 {
		var out []int64
		for _, s := range ss {
			out = append(out, s.T)
		}
		return out
	}
	if got := ts(h.Since(0)); len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Errorf("Since(0) = %v, want [3 4 5]", got)
	}
	if got := ts(h.Since(4)); len(got) != 1 || got[0] != 5 {
		t.Errorf("Since(4) = %v, want [5]", got)
	}
	b, _ := json.Marshal(h.Reply(0))
	if !strings.Contains(string(b), `"interval_ms":1000`) {
		t.Errorf("reply %s", b)
	}
}
