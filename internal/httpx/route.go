package httpx

import (
	"context"
	"net/http"
)

// Every request is labelled with the route pattern it matched (for the
// request log and metrics), by the router that matched it: the edge gives
// the request a label holder (WithRoute), and a Mux writes the pattern its
// route was registered with into it. So the edge needs no list of routes,
// and a request the routers copy (sessions, the .json suffix) is labelled
// all the same.

type routeKey struct{}

// WithRoute returns r with an empty route label holder, and the holder.
func WithRoute(r *http.Request) (*http.Request, *string) {
	label := new(string)
	return r.WithContext(context.WithValue(r.Context(), routeKey{}, label)), label
}

// SetRoute labels the request with pattern, if it carries a holder.
func SetRoute(r *http.Request, pattern string) {
	if label, ok := r.Context().Value(routeKey{}).(*string); ok {
		*label = pattern
	}
}

// Mux is an http.ServeMux whose routes label their requests.
type Mux struct{ *http.ServeMux }

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{http.NewServeMux()} }

// Handle registers h for pattern; a request it serves is labelled pattern.
func (m *Mux) Handle(pattern string, h http.Handler) {
	m.ServeMux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetRoute(r, pattern)
		h.ServeHTTP(w, r)
	}))
}

// HandleFunc registers fn for pattern, as Handle.
func (m *Mux) HandleFunc(pattern string, fn func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(fn))
}
