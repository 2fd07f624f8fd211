package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func s3Env(extra map[string]string) map[string]string {
	m := map[string]string{
		"HUSH_S3_ENDPOINT":   "s3.example.com:9000",
		"HUSH_S3_BUCKET":     "hush-files",
		"HUSH_S3_ACCESS_KEY": "AKIDEXAMPLE",
		"HUSH_S3_SECRET_KEY": "wJalrXUtnFEMI-secret",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestS3Unset(t *testing.T) {
	if c := mustLoad(t, nil, nil); c.S3 != nil {
		t.Errorf("S3 = %+v without HUSH_S3_ENDPOINT", c.S3)
	}
	for _, v := range s3Vars {
		_, err := Load(nil, envMap(map[string]string{v: "x"}))
		if err == nil || !strings.Contains(err.Error(), v) || !strings.Contains(err.Error(), "HUSH_S3_ENDPOINT") {
			t.Errorf("%s without an endpoint: got %v", v, err)
		}
	}
}

func TestS3Settings(t *testing.T) {
	c := mustLoad(t, nil, s3Env(nil))
	want := S3{Endpoint: "s3.example.com:9000", Bucket: "hush-files", AccessKey: "AKIDEXAMPLE",
		SecretKey: "wJalrXUtnFEMI-secret", Region: "us-east-1", UseSSL: true}
	if c.S3 == nil || *c.S3 != want {
		t.Fatalf("S3 = %+v, want %+v", c.S3, want)
	}
	c = mustLoad(t, nil, s3Env(map[string]string{
		"HUSH_S3_REGION": "eu-central-1", "HUSH_S3_USE_SSL": "false", "HUSH_S3_PREFIX": "hush/",
	}))
	if c.S3.Region != "eu-central-1" || c.S3.UseSSL || c.S3.Prefix != "hush/" {
		t.Errorf("S3 = %+v", c.S3)
	}
	// The rest of the configuration is untouched.
	if c.DataDir != defaultDataDir || c.Addr != defaultAddr {
		t.Errorf("other settings changed: %+v", c)
	}
}

func TestS3KeyFiles(t *testing.T) {
	dir := t.TempDir()
	access, secret := filepath.Join(dir, "access"), filepath.Join(dir, "secret")
	if err := os.WriteFile(access, []byte(" AKIDFROMFILE\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("secret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := s3Env(map[string]string{"HUSH_S3_ACCESS_KEY": "", "HUSH_S3_SECRET_KEY": "",
		"HUSH_S3_ACCESS_KEY_FILE": access, "HUSH_S3_SECRET_KEY_FILE": secret})
	c := mustLoad(t, nil, env)
	if c.S3.AccessKey != "AKIDFROMFILE" || c.S3.SecretKey != "secret-from-file" {
		t.Errorf("keys from files: %q %q", c.S3.AccessKey, c.S3.SecretKey)
	}

	_, err := Load(nil, envMap(s3Env(map[string]string{"HUSH_S3_SECRET_KEY_FILE": secret})))
	if err == nil || !strings.Contains(err.Error(), "HUSH_S3_SECRET_KEY_FILE") || strings.Contains(err.Error(), "wJalrXUtnFEMI-secret") {
		t.Errorf("key and file both set: got %v", err)
	}
	_, err = Load(nil, envMap(s3Env(map[string]string{"HUSH_S3_SECRET_KEY": "", "HUSH_S3_SECRET_KEY_FILE": filepath.Join(dir, "missing")})))
	if err == nil || !strings.Contains(err.Error(), "HUSH_S3_SECRET_KEY_FILE") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing key file: got %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(nil, envMap(s3Env(map[string]string{"HUSH_S3_ACCESS_KEY": "", "HUSH_S3_ACCESS_KEY_FILE": empty})))
	if err == nil || !strings.Contains(err.Error(), "HUSH_S3_ACCESS_KEY_FILE") {
		t.Errorf("empty key file: got %v", err)
	}
}

func TestS3Invalid(t *testing.T) {
	tests := []struct {
		name, value, wantIn string
	}{
		{"HUSH_S3_BUCKET", "", "HUSH_S3_BUCKET"},
		{"HUSH_S3_ACCESS_KEY", "", "HUSH_S3_ACCESS_KEY"},
		{"HUSH_S3_SECRET_KEY", "", "HUSH_S3_SECRET_KEY"},
		{"HUSH_S3_USE_SSL", "maybe", "HUSH_S3_USE_SSL"},
		{"HUSH_S3_ENDPOINT", "https://s3.example.com", "HUSH_S3_ENDPOINT"},
		{"HUSH_S3_ENDPOINT", "s3.example.com/bucket", "HUSH_S3_ENDPOINT"},
		{"HUSH_S3_ENDPOINT", "s3.example.com:", "HUSH_S3_ENDPOINT"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			c, err := Load(nil, envMap(s3Env(map[string]string{tt.name: tt.value})))
			if err == nil {
				t.Fatalf("want error, got S3 %+v", c.S3)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q does not name %s", err, tt.wantIn)
			}
			if strings.Contains(err.Error(), "wJalrXUtnFEMI-secret") || strings.Contains(err.Error(), "AKIDEXAMPLE") {
				t.Errorf("error %q shows a key", err)
			}
		})
	}
}

func TestS3Usage(t *testing.T) {
	u := Usage()
	for _, s := range []string{"HUSH_S3_ENDPOINT", "HUSH_S3_BUCKET", "HUSH_S3_ACCESS_KEY_FILE", "HUSH_S3_SECRET_KEY_FILE",
		"HUSH_S3_REGION", "HUSH_S3_USE_SSL", "HUSH_S3_PREFIX"} {
		if !strings.Contains(u, s) {
			t.Errorf("Usage does not mention %s", s)
		}
	}
}
