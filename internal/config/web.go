package config

import "errors"

// loadWeb reads the settings of the web pages and accounts.
func loadWeb(s *source, c *Config) error {
	var errs []error
	for _, v := range []struct {
		name string
		dst  *bool
	}{
		{"PWP__DISABLE_SIGNUPS", &c.DisableSignups},
		{"PWP__DISABLE_LOGINS", &c.DisableLogins},
	} {
		if val, _, ok := s.env(v.name); ok {
			b, err := parseBool(v.name, val)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			*v.dst = b
		}
	}
	if v, name, ok := s.getAlias("PWP__REQUIRE_MFA", "HUSH_REQUIRE_2FA"); ok {
		b, err := parseBool(name, v)
		if err != nil {
			errs = append(errs, err)
		} else {
			c.RequireTwoFactor = b
		}
	}
	return errors.Join(errs...)
}
