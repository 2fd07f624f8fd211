// Package mail is Hush's email: the messages it sends (embedded templates,
// each as plain text and HTML), and the rules of addresses and headers. The
// SMTP delivery is in package mail/smtp.
package mail

import (
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
	"unicode"
)

// Message is one email to one recipient, in plain text and HTML.
type Message struct {
	To      string // a plain address, a@b.example
	Subject string
	Text    string
	HTML    string
}

// ParseSender reads a sender as Password Pusher's mailer_sender gives it:
// `"Name" <address>`, `Name <address>` or an address.
func ParseSender(v string) (*netmail.Address, error) {
	a, err := netmail.ParseAddress(strings.TrimSpace(v))
	if err != nil || !ValidAddress(a.Address) {
		return nil, fmt.Errorf("mail: %q is not a sender address (\"Name <address>\" or an address)", v)
	}
	if strings.ContainsFunc(a.Name, unicode.IsControl) {
		return nil, errors.New("mail: the sender's name holds control characters")
	}
	return a, nil
}

// ValidAddress reports whether a is a plain address that can go into a
// header as it is: local@domain, without spaces, quotes, angle brackets,
// commas or control characters, at most 254 bytes.
func ValidAddress(a string) bool {
	if len(a) > 254 || strings.ContainsFunc(a, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`"<>,;:\()[]`, r)
	}) {
		return false
	}
	p, err := netmail.ParseAddress(a)
	at := strings.LastIndexByte(a, '@')
	return err == nil && p.Address == a && at > 0 && strings.Contains(a[at:], ".")
}

// ErrPermanent marks a failure that trying again will not cure: the server
// refused the sender, the recipient or the message for good (a 5xx reply).
var ErrPermanent = errors.New("mail: refused for good")

// CleanHeader makes s safe for a header's text: control and bidirectional
// formatting characters become spaces, and it is cut to 200 characters.
func CleanHeader(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 200 {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}
