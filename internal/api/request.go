package api

import (
	"net/http"
	"strconv"
	"strings"

	"hush/internal/service"
)

// pageParam parses `page` (docs/decisions.md, D6): an integer in plain
// decimal, optionally signed; 0 and below mean page 1, as in Password
// Pusher; above 200, leading zeros and anything else are 400. Default 1.
func pageParam(r *http.Request) (int, error) {
	vals, ok := r.URL.Query()["page"]
	if !ok {
		return 1, nil
	}
	v := vals[0]
	digits, negative := strings.CutPrefix(v, "-")
	if !negative {
		digits = strings.TrimPrefix(digits, "+")
	}
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) || strings.Trim(digits, "0123456789") != "" {
		return 0, badRequest(msgBadPage)
	}
	if negative || digits == "0" {
		return 1, nil
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n > service.MaxPage {
		return 0, badRequest(msgBadPage)
	}
	return n, nil
}
