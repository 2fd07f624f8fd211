package app

import (
	"io"
	"log/slog"
	"strings"
)

// secretKeys are attribute names whose values never reach a log.
var secretKeys = []string{"passphrase", "payload", "password", "token", "authorization", "secret", "key", "note"}

// redact is the slog ReplaceAttr guard: any attribute named like a secret is
// replaced, whatever code logs it.
func redact(_ []string, a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	for _, s := range secretKeys {
		if strings.Contains(k, s) {
			return slog.String(a.Key, "[redacted]")
		}
	}
	return a
}

func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: redact}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
