package config

import (
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
