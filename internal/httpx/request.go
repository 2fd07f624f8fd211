package httpx

import (
	"net/http"
	"net/netip"
	"net/url"

	"hush/internal/push"
)

// Meta is what the audit log records about a request: the client's address
// (ClientIP), its user agent and referrer.
func Meta(r *http.Request, trusted []netip.Prefix) push.Meta {
	return push.Meta{IP: ClientIP(r, trusted), UserAgent: r.UserAgent(), Referrer: r.Referer()}
}

// SecretURL is the link a recipient opens: origin/p/<token>, or, with the
// retrieval step, its /r page that uses no view.
func SecretURL(origin, token string, retrievalStep bool) string {
	return push.SecretURL(origin, token, retrievalStep)
}

// FileURL is the download link of an attachment: its sealed download token
// decides; the name is only for the person saving the file.
func FileURL(origin, downloadToken, name string) string {
	return origin + "/api/v2/files/" + downloadToken + "/" + url.PathEscape(name)
}

// StatusClientClosed answers a request whose client closed its connection
// (or its sending half) before the answer was ready, so that its context
// ended the work: the status nginx logs for the same case. It is no error
// of the server's, so it is neither a 5xx nor a log line
// (docs/decisions.md, D33).
const StatusClientClosed = 499

// ClientGone reports whether r's client has gone: its context ended.
func ClientGone(r *http.Request) bool { return r.Context().Err() != nil }

// Query is the value of key in r's query string, "" when it has none. A key
// sent more than once takes its last value (Last), as Rack reads a query
// string and as the API reads a form body; url.Values.Get takes the first.
// Where a handler also reads key from a form body, the body's value wins,
// as Rack merges the two (docs/decisions.md, D65).
func Query(r *http.Request, key string) string { return Last(r.URL.Query(), key) }

// Last is the last value of key in vals, "" when it has none: how every
// repeated parameter is read (Query).
func Last(vals url.Values, key string) string {
	v := vals[key]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}
