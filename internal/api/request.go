package api

import (
	"net/http"
	"strconv"

	"hush/internal/service"
)

// pageParam parses `page` (docs/decisions.md, D6): plain decimal 1..200,
// default 1.
func pageParam(r *http.Request) (int, error) {
	vals, ok := r.URL.Query()["page"]
	if !ok {
		return 1, nil
	}
	v := vals[0]
	if len(v) == 0 || len(v) > 3 || v[0] == '0' {
		return 0, badRequest(msgBadPage)
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, badRequest(msgBadPage)
		}
	}
	n, _ := strconv.Atoi(v)
	if n < 1 || n > service.MaxPage {
		return 0, badRequest(msgBadPage)
	}
	return n, nil
}
