//go:build !faultclock

package app

import "time"

// processClock is the clock of the service: the wall clock. A build with
// the faultclock tag (fault tests only) may shift it (clock_fault.go).
func processClock(getenv func(string) string) (func() time.Time, error) { return nil, nil }
