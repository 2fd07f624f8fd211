package app

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"hush/internal/service"
)

// healthz answers liveness: the process serves HTTP.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// readyz answers readiness: a write can commit to the database and a file
// can be stored (checked at most once a second, service.Ready). 503 names
// what fails: {"database":"busy","files":"ok"}.
func readyz(svc *service.Service) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		ready := svc.Ready(ctx)
		code := http.StatusOK
		if !ready.OK() {
			code = http.StatusServiceUnavailable
			w.Header().Set("Retry-After", "2")
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(ready)
	}
}
