package app

import (
	"runtime/debug"

	"hush/internal/secure"
)

// The garbage collector's settings when the environment sets none. A
// request allocates a few KiB and keeps none of it, so the live heap under
// load is small (about 10 MiB) and Go's default (a collection whenever the
// heap doubles) collects very often: every collection marks the same few
// MiB again. Collecting at five times the live heap takes a few percent of
// the CPU per request back (docs/performance.md); a soft memory limit
// keeps the heap from growing past what the service needs, the Argon2id
// memory of the derivations it runs at once included, so the peak stays
// under the memory figures the project publishes: with 48 MiB besides the
// derivations' memory, a server busy with passphrase retrievals peaks at
// about 94 MiB (64 MiB: 113 MiB), the executable's own pages included,
// at the same CPU per request under the other loads.
const (
	gcPercent     = 400
	gcBaseLimit   = 48 << 20 // requests, caches and the database's pages
	gcArgonMemKiB = 1 << 10  // KiB per KiB of Argon2id memory: one copy each
)

// gcSettings returns the GC percent and soft memory limit serve sets, each
// only where the environment (GOGC, GOMEMLIMIT) does not decide: -1 leaves
// the runtime's own.
func gcSettings(getenv func(string) string, argon *secure.Argon) (percent int, limit int64) {
	percent, limit = -1, -1
	if getenv("GOGC") == "" {
		percent = gcPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		limit = gcBaseLimit + int64(argon.MemoryKiB)*gcArgonMemKiB*int64(argon.Concurrency())
	}
	return percent, limit
}

// tuneGC applies gcSettings to the running program.
func tuneGC(getenv func(string) string, argon *secure.Argon) {
	percent, limit := gcSettings(getenv, argon)
	if percent > 0 {
		debug.SetGCPercent(percent)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
}
