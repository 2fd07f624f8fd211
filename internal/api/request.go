package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"hush/internal/service"
)

// pageParam parses `page` (docs/decisions.md, D6): an integer in plain
// decimal, optionally signed; 0 and below mean page 1, as in Password
// Pusher; above 200, leading zeros and anything else are 400. Default 1.
func pageParam(r *http.Request) (int, error) {
	v, ok, err := queryValue(r.URL.RawQuery, "page")
	if err != nil {
		return 0, badRequest(msgBadPage)
	}
	if !ok {
		return 1, nil
	}
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

// queryValue is the last value of key in the raw query raw, as httpx.Query
// reads it, except that a value of key with a malformed escape (%zz) is an
// error where url.ParseQuery drops the pair, which would read as no value
// at all (or as an earlier one). Pairs whose key cannot be unescaped are
// not key's.
func queryValue(raw, key string) (value string, ok bool, err error) {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k, err := url.QueryUnescape(k); err != nil || k != key {
			continue
		}
		if value, err = url.QueryUnescape(v); err != nil {
			return "", true, err
		}
		ok = true
	}
	return value, ok, nil
}
