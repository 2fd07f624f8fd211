package pwpush

import (
	"testing"
	"time"
)

func TestScanColumnForms(t *testing.T) {
	for v, want := range map[any]bool{"t": true, "f": false, int64(1): true, int64(0): false, true: true,
		"true": true, "0": false, nil: false} {
		if got := asBool(v); got != want {
			t.Errorf("asBool(%#v) = %v", v, got)
		}
	}
	want := time.Date(2025, 6, 1, 12, 34, 56, 123456000, time.UTC)
	for _, v := range []any{"2025-06-01 12:34:56.123456", "2025-06-01T12:34:56.123456Z",
		"2025-06-01 14:34:56.123456+02:00", []byte("2025-06-01 12:34:56.123456"), want.In(time.FixedZone("x", 3600))} {
		var c timeCol
		if err := c.Scan(v); err != nil || !c.v.Equal(want) || c.v.Location() != time.UTC {
			t.Errorf("timeCol %#v: %v, %v", v, c.v, err)
		}
	}
	var c timeCol
	if err := c.Scan(nil); err != nil || !c.v.IsZero() {
		t.Errorf("NULL datetime: %v %v", c.v, err)
	}
	if err := c.Scan("yesterday"); err == nil {
		t.Error("unreadable datetime accepted")
	}
	var i intCol
	if err := i.Scan("42"); err != nil || i.v != 42 {
		t.Errorf("intCol: %d %v", i.v, err)
	}
}
