package config

// loadCompat reads the settings that shape what Password Pusher's clients
// may ask for.
func loadCompat(s *source, c *Config) error {
	if v, name, ok := s.env("HUSH_SUBDAY_DURATIONS"); ok {
		b, err := parseBool(name, v)
		if err != nil {
			return err
		}
		c.Push.SubDayDurations = b
	}
	return nil
}
