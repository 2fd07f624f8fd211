package app

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"hush/internal/blob"
	"hush/internal/store"
)

// healthz answers liveness: the process serves HTTP.
func healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte("ok\n"))
}

// readyz answers readiness: the database and the file store are reachable.
func readyz(st *store.Store, files blob.FileStore) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		status := map[string]string{"database": "ok", "files": "ok"}
		code := http.StatusOK
		if err := st.Ping(ctx); err != nil {
			status["database"], code = "unreachable", http.StatusServiceUnavailable
		}
		if err := files.Ping(ctx); err != nil {
			status["files"], code = "unreachable", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(status)
	}
}
