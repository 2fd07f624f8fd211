package config

import (
	"fmt"
	"os"
	"strings"
)

// flagValue is a flag given explicitly on the command line.
type flagValue struct {
	name  string // flag name without "-"
	value string // trimmed, non-empty
}

// source looks settings up in the environment first and then in the flags.
type source struct {
	getenv func(string) string
	flags  map[string]flagValue // keyed by the environment variable name
}

// env returns the trimmed value of an environment variable and the name to
// use in error messages; ok is false if the variable is unset or blank.
func (s *source) env(name string) (value, errName string, ok bool) {
	v := strings.TrimSpace(s.getenv(name))
	return v, name, v != ""
}

// get returns the value of the environment variable env, falling back to
// the flag tied to it.
func (s *source) get(env string) (value, errName string, ok bool) {
	if v, name, ok := s.env(env); ok {
		return v, name, true
	}
	if f, ok := s.flags[env]; ok {
		return f.value, flagName(f, env), true
	}
	return "", env, false
}

// getAlias is get with a second environment variable consulted after env
// but before the flag.
func (s *source) getAlias(env, alias string) (value, errName string, ok bool) {
	if v, name, ok := s.env(env); ok {
		return v, name, true
	}
	if v, name, ok := s.env(alias); ok {
		return v, name, true
	}
	return s.get(env)
}

// flagName names a flag and its variable in error messages.
func flagName(f flagValue, env string) string {
	return fmt.Sprintf("-%s (%s)", f.name, env)
}

// loadMasterKeys reads the current and previous master keys. Key values are
// never included in error messages.
func loadMasterKeys(s *source, c *Config) error {
	if err := loadMasterKey(s, c); err != nil {
		return err
	}
	return loadPreviousKeys(s, c)
}

// loadMasterKey reads HUSH_MASTER_KEY or the file HUSH_MASTER_KEY_FILE names.
func loadMasterKey(s *source, c *Config) error {
	key, keyName, hasKey := s.env("HUSH_MASTER_KEY")
	file, fileName, hasFile := s.get("HUSH_MASTER_KEY_FILE")
	if hasKey && hasFile {
		return fmt.Errorf("HUSH_MASTER_KEY and %s are both set; use only one", fileName)
	}
	if hasFile {
		b, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s: reading master key: %w", fileName, err)
		}
		key = strings.TrimSpace(string(b))
		keyName = "HUSH_MASTER_KEY (from " + fileName + ")"
		if key == "" {
			return fmt.Errorf("%s: file %q is empty", fileName, file)
		}
		c.MasterKeyFile = file
	}
	if key != "" && !isHexKey(key) {
		return fmt.Errorf("%s: must be exactly 64 hexadecimal characters", keyName)
	}
	c.MasterKey = key
	return nil
}

// loadPreviousKeys reads HUSH_MASTER_KEY_PREVIOUS or the file
// HUSH_MASTER_KEY_PREVIOUS_FILE names: keys separated by commas or lines.
func loadPreviousKeys(s *source, c *Config) error {
	prev, prevName, hasPrev := s.env("HUSH_MASTER_KEY_PREVIOUS")
	pfile, pfileName, hasPFile := s.env("HUSH_MASTER_KEY_PREVIOUS_FILE")
	switch {
	case hasPrev && hasPFile:
		return fmt.Errorf("HUSH_MASTER_KEY_PREVIOUS and HUSH_MASTER_KEY_PREVIOUS_FILE are both set; use only one")
	case hasPFile:
		b, err := os.ReadFile(pfile)
		if err != nil {
			return fmt.Errorf("%s: reading previous master keys: %w", pfileName, err)
		}
		prev, prevName = string(b), "HUSH_MASTER_KEY_PREVIOUS (from "+pfileName+")"
	case !hasPrev:
		return nil
	}
	var out []string
	for i, k := range strings.FieldsFunc(prev, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !isHexKey(k) {
			return fmt.Errorf("%s: key %d must be exactly 64 hexadecimal characters", prevName, i+1)
		}
		out = append(out, k)
	}
	if len(out) == 0 {
		return fmt.Errorf("%s: no keys found", prevName)
	}
	c.MasterKeyPrevious = out
	return nil
}

// isHexKey reports whether k is 64 hexadecimal characters (256 bits).
func isHexKey(k string) bool {
	if len(k) != 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
