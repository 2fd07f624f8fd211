package api

import (
	_ "embed"
	"net/http"
	"strconv"
)

//go:generate go run openapi_gen.go

// openAPIJSON is api/openapi.yaml as JSON (generated; a test keeps them equal).
//
//go:embed openapi.json
var openAPIJSON []byte

// OpenAPI returns the OpenAPI document of the v2 API, as JSON.
func OpenAPI() []byte { return openAPIJSON }

// openapi answers GET /api/v2/openapi.json.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPIJSON)))
	w.WriteHeader(http.StatusOK)
	w.Write(openAPIJSON)
	return nil
}
