package pwpush

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The column types Rails leaves differently on its engines: booleans are
// boolean on PostgreSQL, 1 and 0 on SQLite (or 't' and 'f' in databases
// written before Rails 6), and datetimes are timestamp without time zone
// on PostgreSQL and text such as "2025-06-01 12:34:56.123456" on SQLite,
// in UTC either way.

// asBool reads a boolean column; NULL is false.
func asBool(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case int64:
		return x != 0
	case float64:
		return x != 0
	case []byte:
		return parseBool(string(x))
	case string:
		return parseBool(x)
	}
	return false
}

func parseBool(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "1", "y", "yes":
		return true
	}
	return false
}

// boolCol scans a boolean column of either engine.
type boolCol struct{ v bool }

func (b *boolCol) Scan(src any) error {
	b.v = asBool(src)
	return nil
}

// timeLayouts are the forms a datetime takes in a SQLite database written
// by Rails (and by hand).
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999 -0700 MST",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

// timeCol scans a datetime column of either engine into UTC; NULL is the
// zero time.
type timeCol struct{ v time.Time }

func (t *timeCol) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		t.v = time.Time{}
	case time.Time:
		t.v = x.UTC()
	case []byte:
		return t.parse(string(x))
	case string:
		return t.parse(x)
	case int64:
		t.v = time.Unix(x, 0).UTC()
	default:
		return fmt.Errorf("datetime column holds %T", src)
	}
	return nil
}

func (t *timeCol) parse(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		t.v = time.Time{}
		return nil
	}
	for _, l := range timeLayouts {
		if v, err := time.Parse(l, s); err == nil {
			t.v = v.UTC()
			return nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		t.v = time.Unix(n, 0).UTC()
		return nil
	}
	return fmt.Errorf("unreadable datetime %q", s)
}

// intCol scans an integer column; NULL is 0.
type intCol struct{ v int64 }

func (i *intCol) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		i.v = 0
	case int64:
		i.v = x
	case int32:
		i.v = int64(x)
	case float64:
		i.v = int64(x)
	case []byte:
		return i.parse(string(x))
	case string:
		return i.parse(x)
	default:
		return fmt.Errorf("integer column holds %T", src)
	}
	return nil
}

func (i *intCol) parse(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("unreadable integer %q", s)
	}
	i.v = n
	return nil
}
