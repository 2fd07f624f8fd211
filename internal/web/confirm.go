package web

import (
	"fmt"
	"net/http"

	"hush/internal/i18n"
	"hush/internal/push"
)

// Every destructive action asks first (docs/decisions.md, D42). Its form
// carries data-confirm (the question) and data-confirm-button (the label of
// the button that goes ahead): the static script asks in a dialog and sends
// the form with confirm=yes. Without the script the form arrives without
// it, and the handler answers with a page that asks the same question,
// whose form sends the request again with confirm=yes. Either way the
// handler acts only on confirm=yes, so nothing is destroyed by one click
// and no inline script is needed.

// question is what a confirmation asks: the dialog's text and button, the
// same on the page.
type question struct {
	Title  string
	Text   string
	Button string
}

// questions are the confirmations of the pages' destructive forms, by key.
var questions = map[string]question{
	"expire-owner": {"Expire this push now?", "Its link stops working at once and its secret is deleted. This cannot be undone.", "Expire now"},
	"expire-viewer": {"Delete this secret now?", "Nobody will be able to open this link again, you included. This cannot be undone.",
		"Delete this secret"},
	"token-replace": {"Replace your API token?", "The token you have now stops working at once: every script that uses it needs the new one.",
		"Replace the token"},
	"account-delete": {"Delete your account?", "Your account, your API token and all of your pushes with their audit logs are deleted. This cannot be undone.",
		"Delete my account"},
}

// adminQuestion is the confirmation of an admin action on the account
// email, in loc's language: admin.question.<action>.title, .text and
// .button, with the account's {{.Email}}.
func adminQuestion(loc *i18n.Localizer, action push.AdminAction, email string) question {
	k := "admin.question." + string(action) + "."
	data := map[string]any{"Email": email}
	if t := loc.T(k+"title", data); t != k+"title" {
		return question{Title: t, Text: loc.T(k+"text", data), Button: loc.T(k+"button", data)}
	}
	return question{loc.T("admin.question.other.title", nil), string(action), loc.T("admin.question.other.button", nil)}
}

// questionView is what confirm.html shows.
type questionView struct {
	question
	Action   string // where the form posts: the request's own address, with its language prefix
	Cancel   string // where "Cancel" leads, with the prefix
	Password bool   // the action needs the password, asked again here
}

// confirmed reports whether the request carries confirm=yes. When it does
// not, it answers with the confirmation page for q, whose form posts the
// same request again, confirmed; cancel (without a language prefix) is
// where its "Cancel" leads, the page that asked, and so where its language
// switch leads too. The form must have been parsed.
func (s *Server) confirmed(w http.ResponseWriter, r *http.Request, q question, cancel string, password bool) bool {
	if formValue(r, "confirm") == "yes" {
		return true
	}
	s.render(w, switchTo(r, cancel), "confirm.html", page{Title: q.Title, Data: questionView{question: q,
		Action: langPath(r, r.URL.Path), Cancel: langPath(r, cancel), Password: password}})
	return false
}

// questionFor is the template function that gives a form its question.
func questionFor(key string) (question, error) {
	q, ok := questions[key]
	if !ok {
		return question{}, fmt.Errorf("no question %q", key)
	}
	return q, nil
}
