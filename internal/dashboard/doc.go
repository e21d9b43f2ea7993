// Package dashboard serves streamdb's web dashboard: a page of plain
// HTML, JavaScript, SVG and CSS embedded in the binary (no build step,
// nothing fetched from elsewhere) and the JSON API it polls, under
// api/. Handler mounts both on one http.Handler that works at any prefix:
// the page asks for everything by relative URL.
//
// The page shows four things:
//
//   - the jobs creating views (api/jobs): each one's SHOW JOBS row, a
//     progress bar, an ETA, and the SQL that pauses, resumes or rate
//     limits it, to copy (the page changes nothing itself: no request it
//     makes mutates, so it offers no CSRF surface);
//   - the fragment graph of a chosen view (api/views, api/graph): the
//     fragments, the exchanges between them, each fragment's actors and
//     their vnodes, and each fragment's rows per second;
//   - charts of the last ten minutes (api/history): barrier latency,
//     throughput and freshness, from a ring of one sample a second;
//   - the recent recoveries and view errors (api/events).
//
// The package knows nothing of the engine: the engine implements Source
// and owns the goroutine that fills a History (it starts it, stops it
// and joins it in its Close). Handler's requests only read: every
// Source method is safe for concurrent use, and History is guarded by
// its own lock. Text from users (view names, statements, errors) reaches
// the DOM only as text (textContent), never as markup.
package dashboard
