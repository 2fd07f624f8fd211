package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// S3 configures S3-compatible file storage. Config.S3 is nil unless
// HUSH_S3_ENDPOINT is set; then files go to the bucket instead of
// <data-dir>/files.
type S3 struct {
	Endpoint  string // host:port, without scheme
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string // default us-east-1
	UseSSL    bool   // default true
	Prefix    string // optional key prefix
}

const defaultS3Region = "us-east-1"

// s3Vars lists the settings that mean nothing without HUSH_S3_ENDPOINT.
var s3Vars = []string{
	"HUSH_S3_BUCKET", "HUSH_S3_ACCESS_KEY", "HUSH_S3_ACCESS_KEY_FILE", "HUSH_S3_SECRET_KEY",
	"HUSH_S3_SECRET_KEY_FILE", "HUSH_S3_REGION", "HUSH_S3_USE_SSL", "HUSH_S3_PREFIX",
}

// loadS3 reads the HUSH_S3_ settings. Key values never appear in errors.
func loadS3(s *source, c *Config) error {
	endpoint, endpointName, ok := s.env("HUSH_S3_ENDPOINT")
	if !ok {
		for _, v := range s3Vars {
			if _, name, set := s.env(v); set {
				return fmt.Errorf("%s is set but HUSH_S3_ENDPOINT is not; set it to use S3 file storage", name)
			}
		}
		return nil
	}
	cfg := &S3{Endpoint: endpoint, Region: defaultS3Region, UseSSL: true}
	errs := []error{checkEndpoint(endpointName, endpoint)}
	if v, _, ok := s.env("HUSH_S3_BUCKET"); ok {
		cfg.Bucket = v
	} else {
		errs = append(errs, errors.New("HUSH_S3_BUCKET is required when HUSH_S3_ENDPOINT is set"))
	}
	var err error
	cfg.AccessKey, err = secretSetting(s, "HUSH_S3_ACCESS_KEY", true)
	errs = append(errs, err)
	cfg.SecretKey, err = secretSetting(s, "HUSH_S3_SECRET_KEY", true)
	errs = append(errs, err)
	if v, _, ok := s.env("HUSH_S3_REGION"); ok {
		cfg.Region = v
	}
	if v, name, ok := s.env("HUSH_S3_USE_SSL"); ok {
		cfg.UseSSL, err = parseBool(name, v)
		errs = append(errs, err)
	}
	if v, _, ok := s.env("HUSH_S3_PREFIX"); ok {
		cfg.Prefix = v
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c.S3 = cfg
	return nil
}

// checkEndpoint refuses an endpoint that is not host or host:port.
func checkEndpoint(name, endpoint string) error {
	if strings.Contains(endpoint, "://") || strings.Contains(endpoint, "/") {
		return fmt.Errorf("%s: %q must be host or host:port, without scheme or path (TLS is HUSH_S3_USE_SSL)", name, endpoint)
	}
	if _, port, err := net.SplitHostPort(endpoint); err == nil && port == "" {
		return fmt.Errorf("%s: %q has an empty port", name, endpoint)
	}
	return nil
}

// secretSetting reads a secret from the variable env or from the file named
// by env_FILE (trimmed). Setting both is an error; so is setting neither when
// required. The value never appears in an error.
func secretSetting(s *source, env string, required bool) (string, error) {
	v, _, hasValue := s.env(env)
	file, fileName, hasFile := s.env(env + "_FILE")
	switch {
	case hasValue && hasFile:
		return "", fmt.Errorf("%s and %s are both set; use only one", env, fileName)
	case hasFile:
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: reading %s: %w", fileName, env, err)
		}
		v = strings.TrimSpace(string(b))
		if v == "" {
			return "", fmt.Errorf("%s: file %q is empty", fileName, file)
		}
	case !hasValue && required:
		return "", fmt.Errorf("%s (or %s_FILE) is required when HUSH_S3_ENDPOINT is set", env, env)
	}
	return v, nil
}
