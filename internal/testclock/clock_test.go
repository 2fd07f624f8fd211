package testclock

import (
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	at := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	c := New(at)
	if !c.Now().Equal(at) {
		t.Fatalf("Now = %v, want %v", c.Now(), at)
	}
	c.Advance(90 * time.Minute)
	if want := at.Add(90 * time.Minute); !c.Now().Equal(want) {
		t.Fatalf("after Advance: %v, want %v", c.Now(), want)
	}
	c.Set(at)
	if !c.Now().Equal(at) {
		t.Fatalf("after Set: %v, want %v", c.Now(), at)
	}
}
