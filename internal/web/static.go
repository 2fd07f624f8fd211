package web

import (
	"embed"
	"net/http"
)

//go:embed static
var staticFS embed.FS

// staticHandler serves the embedded stylesheet, script and icon under /static/.
func staticHandler() http.Handler {
	return http.FileServerFS(staticFS)
}
