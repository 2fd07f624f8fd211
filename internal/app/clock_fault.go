//go:build faultclock

package app

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// processClock, in a build with the faultclock tag, shifts the service's
// clock by the duration written in the file HUSH_FAULT_CLOCK_FILE (e.g.
// "25h"), read again every 50 ms, so that fault tests can carry a running
// server past expiry boundaries. Release builds have no such setting.
func processClock(getenv func(string) string) (func() time.Time, error) {
	path := getenv("HUSH_FAULT_CLOCK_FILE")
	if path == "" {
		return nil, nil
	}
	var offset atomic.Int64
	read := func() error {
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			offset.Store(0)
			return nil
		}
		if err != nil {
			return err
		}
		d, err := time.ParseDuration(strings.TrimSpace(string(b)))
		if err != nil {
			return fmt.Errorf("HUSH_FAULT_CLOCK_FILE: %w", err)
		}
		offset.Store(int64(d))
		return nil
	}
	if err := read(); err != nil {
		return nil, err
	}
	go func() {
		for range time.Tick(50 * time.Millisecond) {
			read()
		}
	}()
	return func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }, nil
}
