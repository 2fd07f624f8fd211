package smtp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hush/internal/mail"
	"hush/internal/mail/smtp"
	"hush/internal/mailtest"
)

func sender(t *testing.T, srv *mailtest.Server, change func(*smtp.Config)) *smtp.Sender {
	t.Helper()
	cfg := smtp.Config{Host: srv.Host, Port: srv.Port, From: `"Hush at Example" <hush@example.com>`, RootCAs: srv.RootCAs,
		OpenTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second}
	if change != nil {
		change(&cfg)
	}
	s, err := smtp.NewSender(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func message(to string) mail.Message {
	return mail.Message{To: to, Subject: "Hello", Text: "plain body\n", HTML: "<p>html body</p>"}
}

// TestSendMultipart: a message arrives from the configured sender to its one
// recipient as multipart/alternative, plain text first, with a Message-ID in
// the sender's domain and no User-Agent.
func TestSendMultipart(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	s := sender(t, srv, nil)
	if err := s.Send(context.Background(), message("bob@example.org")); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, "bob@example.org", 1, 5*time.Second)[0]
	if got.From.Address != "hush@example.com" || got.From.Name != "Hush at Example" || got.Subject != "Hello" {
		t.Errorf("from %+v subject %q", got.From, got.Subject)
	}
	if strings.TrimSpace(got.Text) != "plain body" || !strings.Contains(got.HTML, "<p>html body</p>") {
		t.Errorf("text %q html %q", got.Text, got.HTML)
	}
	raw := srv.Raw(t, got.ID)
	for _, want := range []string{"multipart/alternative", "text/plain; charset=UTF-8", "text/html; charset=UTF-8",
		"@example.com>", "Auto-Submitted: auto-generated"} {
		if !strings.Contains(raw, want) {
			t.Errorf("raw message lacks %q:\n%s", want, raw)
		}
	}
	if strings.Index(raw, "text/plain") > strings.Index(raw, "text/html") {
		t.Error("the HTML part comes before the plain text")
	}
	if strings.Contains(raw, "User-Agent") || strings.Contains(raw, "X-Mailer") {
		t.Errorf("the message names its mailer:\n%s", raw)
	}
}

// TestSendSecurity: STARTTLS when required, implicit TLS, AUTH PLAIN and
// LOGIN with the right password, over a server that checks them.
func TestSendSecurity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   mailtest.Options
		change func(*smtp.Config)
	}{
		{"starttls required, auth plain", mailtest.Options{TLS: true, RequireSTARTTLS: true, Username: "hush", Password: "s3cret-pass"},
			func(c *smtp.Config) {
				c.StartTLS, c.Auth, c.Username, c.Password = smtp.StartTLSRequired, smtp.AuthPlain, "hush", "s3cret-pass"
			}},
		{"starttls opportunistic, auth login", mailtest.Options{TLS: true, RequireSTARTTLS: true, Username: "hush", Password: "pw"},
			func(c *smtp.Config) { c.Auth, c.Username, c.Password = smtp.AuthLogin, "hush", "pw" }},
		{"implicit tls, auth plain", mailtest.Options{ImplicitTLS: true, Username: "hush", Password: "pw"},
			func(c *smtp.Config) { c.TLS, c.Auth, c.Username, c.Password = true, smtp.AuthPlain, "hush", "pw" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mailtest.Start(t, tc.opts)
			if err := sender(t, srv, tc.change).Send(context.Background(), message("carol@example.org")); err != nil {
				t.Fatal(err)
			}
			srv.Wait(t, "carol@example.org", 1, 5*time.Second)
		})
	}
}

// TestSendRefusals: what fails, and whether trying again may help. A wrong
// password, a server without STARTTLS when it is required, a certificate
// nobody vouches for, and a 451 are temporary (an operator can fix them);
// a 550 for the recipient is permanent; none delivers anything.
func TestSendRefusals(t *testing.T) {
	plain := mailtest.Start(t, mailtest.Options{Chaos: true})
	secure := mailtest.Start(t, mailtest.Options{TLS: true, RequireSTARTTLS: true, Username: "hush", Password: "right"})
	ctx := context.Background()
	cases := []struct {
		name      string
		srv       *mailtest.Server
		change    func(*smtp.Config)
		permanent bool
	}{
		{"wrong password", secure, func(c *smtp.Config) { c.Auth, c.Username, c.Password = smtp.AuthPlain, "hush", "wrong" }, false},
		{"starttls required but not offered", plain, func(c *smtp.Config) { c.StartTLS = smtp.StartTLSRequired }, false},
		{"untrusted certificate", secure, func(c *smtp.Config) {
			c.RootCAs, c.Auth, c.Username, c.Password = nil, smtp.AuthPlain, "hush", "right"
		}, false},
		{"plain auth without tls to a remote name", plain, func(c *smtp.Config) {
			c.Host, c.StartTLS, c.Auth, c.Username, c.Password = "localhost.localdomain.invalid", smtp.StartTLSOff, smtp.AuthPlain, "u", "p"
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := sender(t, tc.srv, tc.change).Send(ctx, message("dave@example.org"))
			if err == nil || errors.Is(err, mail.ErrPermanent) != tc.permanent {
				t.Fatalf("err = %v, permanent %v", err, tc.permanent)
			}
		})
	}
	s := sender(t, plain, nil)
	plain.SetFailure(t, 451)
	if err := s.Send(ctx, message("dave@example.org")); err == nil || errors.Is(err, mail.ErrPermanent) {
		t.Errorf("451: %v, want a temporary error", err)
	}
	plain.SetFailure(t, 550)
	err := s.Send(ctx, message("dave@example.org"))
	if !errors.Is(err, mail.ErrPermanent) {
		t.Errorf("550: %v, want a permanent error", err)
	}
	// The error is logged and kept in the outbox: it names no recipient.
	if err == nil || strings.Contains(err.Error(), "dave@example.org") || !strings.Contains(err.Error(), "<recipient>") {
		t.Errorf("550: %v", err)
	}
	plain.SetFailure(t, 0)
	if n := len(plain.To(t, "dave@example.org")) + len(secure.To(t, "dave@example.org")); n != 0 {
		t.Errorf("%d messages delivered", n)
	}
}

// TestHeaderInjection: line breaks in a subject or a sender's name cannot
// add a header; a recipient or sender address that is not a plain address
// is refused before anything is sent.
func TestHeaderInjection(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	s := sender(t, srv, nil)
	ctx := context.Background()
	m := message("erin@example.org")
	m.Subject = "Hi\r\nBcc: mallory@evil.example\r\nX-Injected: yes"
	if err := s.Send(ctx, m); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, "erin@example.org", 1, 5*time.Second)[0]
	raw := srv.Raw(t, got.ID)
	head, _, _ := strings.Cut(raw, "\r\n\r\n")
	for _, bad := range []string{"\nBcc:", "\nX-Injected:"} {
		if strings.Contains(head, bad) {
			t.Errorf("header injected (%q):\n%s", bad, head)
		}
	}
	for _, to := range []string{"erin@example.org\r\nBcc: mallory@evil.example", "Erin <erin@example.org>",
		"erin@example.org, mallory@evil.example", "\"a b\"@example.org", "erin@localhost", ""} {
		err := s.Send(ctx, message(to))
		if !errors.Is(err, mail.ErrPermanent) {
			t.Errorf("To %q: %v, want a permanent refusal", to, err)
		}
	}
	for _, from := range []string{"hush@example.com\r\nBcc: mallory@evil.example", "Hush\r\n <hush@example.com>",
		"not an address", "\"Hush\nBcc: x@y.z\" <hush@example.com>"} {
		if _, err := smtp.NewSender(smtp.Config{Host: srv.Host, Port: srv.Port, From: from}); err == nil {
			t.Errorf("sender %q accepted", from)
		}
	}
	if n := len(srv.Messages(t)); n != 1 {
		t.Errorf("%d messages arrived, want 1", n)
	}
	for _, m := range srv.Messages(t) {
		for _, a := range m.To {
			if a.Address != "erin@example.org" {
				t.Errorf("a message went to %q", a.Address)
			}
		}
	}
}
