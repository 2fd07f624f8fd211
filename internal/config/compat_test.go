package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestSubDayDurations(t *testing.T) {
	if c := mustLoad(t, nil, nil); !c.Push.SubDayDurations {
		t.Error("sub-day durations are off by default")
	}
	if c := mustLoad(t, nil, map[string]string{"HUSH_SUBDAY_DURATIONS": "false"}); c.Push.SubDayDurations {
		t.Error("HUSH_SUBDAY_DURATIONS=false left them on")
	}
	if c := mustLoad(t, nil, map[string]string{"HUSH_SUBDAY_DURATIONS": "yes"}); !c.Push.SubDayDurations {
		t.Error("HUSH_SUBDAY_DURATIONS=yes left them off")
	}
	_, err := Load(nil, envMap(map[string]string{"HUSH_SUBDAY_DURATIONS": "sometimes"}))
	if err == nil || !strings.Contains(err.Error(), "HUSH_SUBDAY_DURATIONS") {
		t.Errorf("a bad value: %v", err)
	}
	if !strings.Contains(Usage(), "HUSH_SUBDAY_DURATIONS") {
		t.Error("Usage does not list HUSH_SUBDAY_DURATIONS")
	}
}

func TestCORSOrigins(t *testing.T) {
	for _, c := range []struct {
		value string
		want  []string
	}{
		{"", []string{"*"}}, // unset, as every empty variable
		{"*", []string{"*"}},
		{"none", nil},
		{"OFF", nil},
		{"https://app.example.com", []string{"https://app.example.com"}},
		{" HTTPS://App.Example.com/ , http://localhost:3000", []string{"https://app.example.com", "http://localhost:3000"}},
	} {
		got := mustLoad(t, nil, map[string]string{"HUSH_CORS_ORIGINS": c.value}).CORSOrigins
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.value, got, c.want)
		}
	}
	for _, bad := range []string{"app.example.com", "ftp://x.example", "https://x.example/path", "https://", ",", "https://u@x.example", "*,https://x.example"} {
		_, err := Load(nil, envMap(map[string]string{"HUSH_CORS_ORIGINS": bad}))
		if err == nil || !strings.Contains(err.Error(), "HUSH_CORS_ORIGINS") {
			t.Errorf("%q: %v, want an error naming HUSH_CORS_ORIGINS", bad, err)
		}
	}
	if !strings.Contains(Usage(), "HUSH_CORS_ORIGINS") {
		t.Error("Usage does not list HUSH_CORS_ORIGINS")
	}
}
