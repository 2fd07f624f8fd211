package app

import (
	"log/slog"
	"time"

	"hush/internal/config"
	"hush/internal/mail/smtp"
	"hush/internal/service"
)

// outboxPoll is how often the outbox worker looks for messages that other
// instances queued or that wait to be tried again; a message this instance
// queues is sent at once.
const outboxPoll = 5 * time.Second

// newMailer is the SMTP sender of the configuration, or nil without an
// SMTP server (then Hush sends no email).
func newMailer(cfg *config.Config, log *slog.Logger) (service.Mailer, error) {
	m := cfg.Mail
	if m == nil {
		return nil, nil
	}
	s, err := smtp.NewSender(smtp.Config{Host: m.Host, Port: m.Port, Username: m.Username, Password: m.Password,
		Auth: m.Auth, StartTLS: m.StartTLS, TLS: m.TLS, SkipVerify: m.SkipVerify, HELO: m.HELO, From: m.From,
		OpenTimeout: m.OpenTimeout, ReadTimeout: m.ReadTimeout})
	if err != nil {
		return nil, err
	}
	if m.SkipVerify {
		log.Warn("the SMTP server's certificate is not checked (HUSH_SMTP_OPENSSL_VERIFY_MODE=none): whoever sits between Hush and it can read the mail, secret links included")
	}
	log.Info("email on", "smtp", smtp.Config{Host: m.Host, Port: m.Port}.Addr(), "tls", m.TLS, "starttls", m.StartTLS,
		"auth", m.Auth, "from", s.From())
	return s, nil
}
