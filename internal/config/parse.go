package config

import (
	"fmt"
	"log/slog"
	"math"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// parseBool accepts true/false/1/0/yes/no/on/off/t/f, case-insensitively.
func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on", "t":
		return true, nil
	case "false", "0", "no", "off", "f":
		return false, nil
	}
	return false, fmt.Errorf("%s: %q is not a boolean (want true or false)", name, v)
}

// parseInt accepts a plain decimal integer, optionally negative, that fits
// in bits bits.
func parseInt(name, v string, bits int) (int64, error) {
	s := strings.TrimSpace(v)
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%s: %q is not an integer", name, v)
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is out of range: %w", name, v, err)
	}
	return n, nil
}

// parseDuration accepts a Go duration of at least min.
func parseDuration(name, v string, min time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a duration (e.g. 30s, 5m): %w", name, v, err)
	}
	if d < min {
		return 0, fmt.Errorf("%s: %s is shorter than the minimum of %s", name, d, min)
	}
	return d, nil
}

// purgeUnit returns the length of a PWP__PURGE_AFTER unit (singular or plural).
func purgeUnit(u string) (time.Duration, bool) {
	const day = 24 * time.Hour
	switch strings.TrimSuffix(strings.ToLower(u), "s") {
	case "minute":
		return time.Minute, true
	case "hour":
		return time.Hour, true
	case "day":
		return day, true
	case "week":
		return 7 * day, true
	case "month":
		return 30 * day, true
	case "year":
		return 365 * day, true
	}
	return 0, false
}

// parsePurgeAfter parses "disabled" (0) or "<N> <unit>", e.g. "3 months".
func parsePurgeAfter(name, v string) (time.Duration, error) {
	s := strings.TrimSpace(v)
	if strings.EqualFold(s, "disabled") {
		return 0, nil
	}
	bad := fmt.Errorf("%s: %q is not \"disabled\" or \"<N> <unit>\" with unit minutes, hours, days, weeks, months or years", name, v)
	fields := strings.Fields(s)
	if len(fields) != 2 || strings.Trim(fields[0], "0123456789") != "" {
		return 0, bad
	}
	unit, ok := purgeUnit(fields[1])
	if !ok {
		return 0, bad
	}
	n, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q: %w", name, v, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%s: %q: the number must be positive", name, v)
	}
	if n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("%s: %q is too long", name, v)
	}
	return time.Duration(n) * unit, nil
}

// parseLevel accepts debug, info, warn (or warning) and error.
func parseLevel(name, v string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("%s: %q is not a log level (want debug, info, warn or error)", name, v)
}

// checkDatabaseURL accepts "sqlite:<path>", "file:<path>" and postgres URLs.
func checkDatabaseURL(name, v string) error {
	if path, ok := SQLitePathOf(v); ok {
		if path == "" {
			return fmt.Errorf("%s: %q has no file path", name, v)
		}
		return nil
	}
	if strings.HasPrefix(v, "postgres://") || strings.HasPrefix(v, "postgresql://") {
		if _, err := url.Parse(v); err != nil {
			// url.Error would echo the URL, which may hold a password.
			return fmt.Errorf("%s: not a valid PostgreSQL URL", name)
		}
		return nil
	}
	return fmt.Errorf("%s: unsupported database URL (want sqlite:<path>, file:<path> or postgres://...)", name)
}

// parseBaseURL checks for an absolute http(s) URL with a host and trims
// trailing slashes.
func parseBaseURL(name, v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil {
		return "", fmt.Errorf("%s: %q is not a URL: %w", name, v, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%s: %q must start with http:// or https://", name, v)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%s: %q has no host", name, v)
	}
	return strings.TrimRight(v, "/"), nil
}

// parseProxies parses comma-separated CIDRs or bare IPs; a bare IP becomes
// a single-address prefix.
func parseProxies(name, v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a CIDR: %w", name, item, err)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an IP address: %w", name, item, err)
		}
		if a.Zone() != "" {
			return nil, fmt.Errorf("%s: %q: zoned addresses are not supported", name, item)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
