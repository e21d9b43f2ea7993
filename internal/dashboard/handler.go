package dashboard

import (
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
)

//go:embed assets
var assets embed.FS

// contentSecurityPolicy lets the page load only its own script, style
// and API: no inline script, nothing from another origin.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler returns the dashboard over src: the page at /, its assets
// under /assets/ and the JSON API under /api/. Mount it at any prefix
// (with http.StripPrefix); the page uses relative URLs only. Every route
// answers GET (and HEAD) only, and none changes anything.
func Handler(src Source) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", serveIndex)
	mux.Handle("GET /assets/", http.FileServerFS(assets))
	mux.HandleFunc("GET /api/jobs", func(w http.ResponseWriter, r *http.Request) {
		reply(w, func() (any, error) { return src.Jobs() })
	})
	mux.HandleFunc("GET /api/views", func(w http.ResponseWriter, r *http.Request) {
		reply(w, func() (any, error) { return src.Views() })
	})
	mux.HandleFunc("GET /api/graph", func(w http.ResponseWriter, r *http.Request) {
		serveGraph(w, r, src)
	})
	mux.HandleFunc("GET /api/history", func(w http.ResponseWriter, r *http.Request) {
		since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
		reply(w, func() (any, error) { return src.History(since) })
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		reply(w, func() (any, error) { return src.Events() })
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if r.URL.Path == "" {
			// Mounted under a prefix and asked for without the final
			// slash: the page's relative URLs need it.
			redirectToSlash(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// serveIndex serves the page.
func serveIndex(w http.ResponseWriter, r *http.Request) {
	page, err := fs.ReadFile(assets, "assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Cache-Control", "no-cache")
	w.Write(page)
}

// serveGraph answers api/graph?view=NAME.
func serveGraph(w http.ResponseWriter, r *http.Request, src Source) {
	name := r.URL.Query().Get("view")
	if name == "" {
		http.Error(w, "api/graph needs ?view=NAME", http.StatusBadRequest)
		return
	}
	g, ok, err := src.Graph(name)
	if err == nil && !ok {
		http.Error(w, "no relation "+strconv.Quote(name), http.StatusNotFound)
		return
	}
	reply(w, func() (any, error) { return g, err })
}

// reply writes get's value as JSON, or its error.
func reply(w http.ResponseWriter, get func() (any, error)) {
	v, err := get()
	if err != nil {
		code := http.StatusInternalServerError
		if errors.Is(err, ErrClosed) {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, err.Error(), code)
		return
	}
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.Write(body)
}

// redirectToSlash redirects a request for the mount point itself to the
// mount point with a final slash, keeping the query.
func redirectToSlash(w http.ResponseWriter, r *http.Request) {
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil || u.Path == "" {
		http.NotFound(w, r)
		return
	}
	u.Path += "/"
	http.Redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
}
