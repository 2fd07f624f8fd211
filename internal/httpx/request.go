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
