package mail

import (
	"bytes"
	"embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	"sync"
	texttemplate "text/template"

	"hush/internal/i18n"
)

//go:embed templates
var templateFS embed.FS

// The messages Hush sends, by template name.
const (
	TemplateReset   = "reset"   // a password reset link (ResetData)
	TemplateConfirm = "confirm" // an address confirmation link (ResetData)
	TemplateNotify  = "notify"  // a secret link for its recipient (NotifyData)
	TemplateReceipt = "receipt" // a read receipt for a push's owner (ReceiptData)
	TemplateHookOff = "hookoff" // a webhook endpoint Hush turned off, for its owner (HookOffData)
	TemplateTaken   = "taken"   // a sign-up with an address that has an account, for its owner (TakenData)
)

// TakenData fills the message that tells an account's owner that someone
// tried to create an account with its address.
type TakenData struct {
	Origin string // scheme://host of the instance
	Email  string // the account
	SignIn string // the address of the sign-in page
	Reset  string // the address of the page that asks for a reset link
}

// HookOffData fills the message that tells an endpoint's owner that Hush
// turned it off.
type HookOffData struct {
	Origin string
	URL    string // the endpoint
	Since  string // when its deliveries began to fail
	Page   string // the address of the owner's webhook page; "" without a fixed origin
}

// ResetData fills the reset and confirm messages.
type ResetData struct {
	Origin string // scheme://host of the instance
	Email  string // the account
	Link   string // the single-use link
	Valid  string // how long the link works, in words ("1 hour")
}

// NotifyData fills the message that brings a secret link to a recipient:
// who sent it, the link and its limits — never the push's name, note or
// payload.
type NotifyData struct {
	Origin     string
	From       string // the owner's address
	Link       string
	Limits     string // "7 days or 5 views"
	Passphrase bool   // the push asks for a passphrase
}

// ReceiptData fills a read receipt: which push (by its name or the
// beginning of its token's time prefix), what happened and when — never
// the link, the payload or the note.
type ReceiptData struct {
	Origin  string // "" when the instance has no fixed address
	Event   string // view, failed_passphrase or expire
	Label   string // the push's name in quotes, or its short id
	At      string // when it happened
	Created string // when the push was created
	Quiet   string // how long further failed passphrases are not emailed
}

// message is one message's templates: subject and text, and HTML.
type message struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

// messages are each shipped language's messages, by language code and
// name, parsed at the language's first message: their t and tn functions
// speak that language (docs/decisions.md, D52).
var messages = sync.OnceValue(func() map[string]func() map[string]message {
	out := map[string]func() map[string]message{}
	for _, l := range i18n.Languages() {
		out[l.Code] = sync.OnceValue(func() map[string]message { return parseMessages(i18n.For(l.Code)) })
	}
	return out
})

// parseMessages parses each message as a set of its own (the HTML with the
// layout), in loc's language.
func parseMessages(loc *i18n.Localizer) map[string]message {
	fm := map[string]any{
		"t":    func(key string) string { return loc.T(key, nil) },
		"tf":   func(key string, args ...any) string { return loc.T(key, pairs(args)) },
		"tn":   func(key string, n int, args ...any) string { return loc.N(key, n, pairs(args)) },
		"lang": func() i18n.Language { return loc.Lang() },
	}
	out := map[string]message{}
	for _, name := range []string{TemplateReset, TemplateConfirm, TemplateNotify, TemplateReceipt, TemplateHookOff, TemplateTaken} {
		out[name] = message{
			text: texttemplate.Must(texttemplate.New(name).Funcs(fm).ParseFS(templateFS, "templates/"+name+".txt")),
			html: htmltemplate.Must(htmltemplate.New(name).Funcs(fm).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")),
		}
	}
	return out
}

// pairs reads name, value, name, value … into a map.
func pairs(args []any) map[string]any {
	if len(args) < 2 {
		return nil
	}
	m := make(map[string]any, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok {
			m[k] = args[i+1]
		}
	}
	return m
}

// Render writes the message name for data in the default language
// (RenderIn).
func Render(name string, data any) (Message, error) {
	return RenderIn(i18n.Default, name, data)
}

// RenderIn writes the message name for data in the shipped language lang
// (the default language when lang is not one), without its recipient: the
// subject and the text from the plain-text template, the HTML (every value
// escaped) from the HTML one.
func RenderIn(lang, name string, data any) (Message, error) {
	var m Message
	tm, ok := messages()[i18n.For(lang).Lang().Code]()[name]
	if !ok {
		return m, fmt.Errorf("mail: no message %q", name)
	}
	var subject, text, html bytes.Buffer
	t, ht := tm.text, tm.html
	if err := t.ExecuteTemplate(&subject, "subject", data); err != nil {
		return m, fmt.Errorf("mail: %s subject: %w", name, err)
	}
	if err := t.ExecuteTemplate(&text, "text", data); err != nil {
		return m, fmt.Errorf("mail: %s text: %w", name, err)
	}
	if err := ht.ExecuteTemplate(&html, "layout", data); err != nil {
		return m, fmt.Errorf("mail: %s html: %w", name, err)
	}
	m.Subject = CleanHeader(subject.String())
	m.Text = strings.TrimSpace(text.String()) + "\n"
	m.HTML = html.String()
	return m, nil
}
