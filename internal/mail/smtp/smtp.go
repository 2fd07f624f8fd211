// Package smtp delivers Hush's messages to an SMTP server.
//
// It uses github.com/wneessen/go-mail, a maintained SMTP client that speaks
// STARTTLS (required, or when offered), implicit TLS, and AUTH PLAIN, LOGIN
// and CRAM-MD5, with timeouts and a context, refuses PLAIN and LOGIN on a
// connection without TLS (but to localhost), and tells a temporary failure
// from a permanent one. Each message goes to one recipient, so that no
// recipient learns another's address.
package smtp

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"hush/internal/mail"
)

// Authentication mechanisms, as Password Pusher's smtp_authentication
// names them.
const (
	AuthNone    = "none"
	AuthPlain   = "plain"
	AuthLogin   = "login"
	AuthCRAMMD5 = "cram_md5"
)

// STARTTLS policies.
const (
	StartTLSRequired      = "required"      // fail unless the server offers STARTTLS
	StartTLSOpportunistic = "opportunistic" // use it when offered
	StartTLSOff           = "off"           // never
)

// Config is how to reach the SMTP server.
type Config struct {
	Host     string
	Port     int
	Username string
	Password string
	Auth     string // AuthNone, AuthPlain, AuthLogin or AuthCRAMMD5
	StartTLS string // StartTLSRequired, StartTLSOpportunistic or StartTLSOff
	// TLS is implicit TLS from the first byte (SMTPS, usually port 465);
	// STARTTLS is then not used.
	TLS bool
	// SkipVerify accepts any server certificate (Password Pusher's
	// smtp_openssl_verify_mode none). Only for a server on a trusted network.
	SkipVerify bool
	// RootCAs are the certificate authorities trusted for the server; nil:
	// the system's.
	RootCAs *x509.CertPool
	// HELO is the name Hush gives itself in HELO/EHLO; "": the host name.
	HELO string
	// From is the sender, "Name <address>" or an address.
	From        string
	OpenTimeout time.Duration // to connect; 0: 10 s
	ReadTimeout time.Duration // for each reply; 0: 10 s
}

// Sender delivers messages to the SMTP server of a Config. It is safe for
// concurrent use; each Send opens a connection of its own.
type Sender struct {
	cfg  Config
	from *netmail.Address
}

// NewSender checks cfg and returns its Sender.
func NewSender(cfg Config) (*Sender, error) {
	if cfg.Host == "" || cfg.Port <= 0 || cfg.Port > 65535 {
		return nil, errors.New("smtp: an SMTP host and port are required")
	}
	from, err := mail.ParseSender(cfg.From)
	if err != nil {
		return nil, err
	}
	switch cfg.Auth {
	case "":
		cfg.Auth = AuthNone
	case AuthNone, AuthPlain, AuthLogin, AuthCRAMMD5:
	default:
		return nil, fmt.Errorf("smtp: unknown authentication %q", cfg.Auth)
	}
	if cfg.OpenTimeout <= 0 {
		cfg.OpenTimeout = 10 * time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 10 * time.Second
	}
	return &Sender{cfg: cfg, from: from}, nil
}

// From is the sender's address.
func (s *Sender) From() string { return s.from.Address }

// Send delivers m. An error wrapping mail.ErrPermanent will not go away by
// trying again; any other may.
func (s *Sender) Send(ctx context.Context, m mail.Message) error {
	msg, err := s.build(m)
	if err != nil {
		return fmt.Errorf("%w: %v", mail.ErrPermanent, err)
	}
	// The client bounds each reply by a deadline, not by ctx: the
	// connection is closed when ctx ends, so that a stopping server does
	// not wait for a silent SMTP server.
	var stops []func() bool
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	hold := func(conn net.Conn) { stops = append(stops, context.AfterFunc(ctx, func() { conn.Close() })) }
	c, err := gomail.NewClient(s.cfg.Host, s.options(hold)...)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	err = c.DialAndSendWithContext(ctx, msg)
	if err == nil {
		return nil
	}
	// The error goes to the log and the outbox: the recipient's address,
	// which the client and many servers' replies name, is left out.
	why := strings.ReplaceAll(err.Error(), m.To, "<recipient>")
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.Reason != gomail.ErrConnCheck && se.Reason != gomail.ErrSMTPReset {
		return fmt.Errorf("%w: %s", mail.ErrPermanent, why)
	}
	return errors.New("smtp: " + why)
}

// options are the client options of the configuration; hold is given
// each connection the client opens.
func (s *Sender) options(hold func(net.Conn)) []gomail.Option {
	cfg := s.cfg
	tc := &tls.Config{ServerName: cfg.Host, RootCAs: cfg.RootCAs, InsecureSkipVerify: cfg.SkipVerify, MinVersion: tls.VersionTLS12}
	dialer := &net.Dialer{Timeout: cfg.OpenTimeout}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var conn net.Conn
		var err error
		if cfg.TLS {
			conn, err = (&tls.Dialer{NetDialer: dialer, Config: tc}).DialContext(ctx, network, addr)
		} else {
			conn, err = dialer.DialContext(ctx, network, addr)
		}
		if err == nil {
			hold(conn)
		}
		return conn, err
	}
	opts := []gomail.Option{
		gomail.WithPort(cfg.Port),
		gomail.WithTimeout(cfg.ReadTimeout),
		gomail.WithTLSConfig(tc),
		gomail.WithoutNoop(),
	}
	if cfg.HELO != "" {
		opts = append(opts, gomail.WithHELO(cfg.HELO))
	}
	if cfg.TLS {
		opts = append(opts, gomail.WithSSL(), gomail.WithDialContextFunc(dial))
	} else {
		opts = append(opts, gomail.WithDialContextFunc(dial))
		switch cfg.StartTLS {
		case StartTLSRequired:
			opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		case StartTLSOff:
			opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		default:
			opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		}
	}
	// PLAIN and LOGIN send the password as it is: the client refuses them
	// on a connection without TLS (but to localhost).
	switch cfg.Auth {
	case AuthPlain:
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain))
	case AuthLogin:
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthLogin))
	case AuthCRAMMD5:
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthCramMD5))
	}
	if cfg.Auth != AuthNone {
		opts = append(opts, gomail.WithUsername(cfg.Username), gomail.WithPassword(cfg.Password))
	}
	return opts
}

// build makes the MIME message: multipart/alternative with the plain text
// first and the HTML second; the subject is encoded when it needs to be,
// so nothing in it can start a header of its own.
func (s *Sender) build(m mail.Message) (*gomail.Msg, error) {
	if !mail.ValidAddress(m.To) {
		return nil, errors.New("not a recipient address")
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(s.from)
	if err := msg.To(m.To); err != nil {
		return nil, err
	}
	msg.Subject(mail.CleanHeader(m.Subject))
	id, err := messageID(s.from.Address)
	if err != nil {
		return nil, err
	}
	msg.SetMessageIDWithValue(id)
	msg.SetDate()
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// messageID is a random mail.Message-ID in the sender's domain.
func messageID(from string) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x.hush@%s", b, from[strings.LastIndexByte(from, '@')+1:]), nil
}

// Addr is host:port of the configuration, for messages.
func (c Config) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }
