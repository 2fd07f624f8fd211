package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// loadCompat reads the settings that shape what Password Pusher's clients
// may do: the sub-day durations they may ask for, and the origins whose
// pages may call the API (CORS).
func loadCompat(s *source, c *Config) error {
	var errs []error
	if v, name, ok := s.env("HUSH_SUBDAY_DURATIONS"); ok {
		b, err := parseBool(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.Push.SubDayDurations = b
		}
	}
	if v, name, ok := s.env("HUSH_CORS_ORIGINS"); ok {
		o, err := parseOrigins(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.CORSOrigins = o
		}
	}
	return errors.Join(errs...)
}

// parseOrigins reads HUSH_CORS_ORIGINS: "*", "none" (or "off": no CORS), or
// comma-separated origins scheme://host[:port], returned in lower case.
func parseOrigins(name, v string) ([]string, error) {
	switch strings.ToLower(v) {
	case "*":
		return []string{"*"}, nil
	case "none", "off":
		return nil, nil
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		u, err := url.Parse(item)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("%s: %q is not an origin (want * or scheme://host[:port], comma-separated, or none)", name, item)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %q names no origin", name, v)
	}
	return out, nil
}
