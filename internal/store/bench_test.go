package store

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"hush/internal/push"
)

func benchStore(b *testing.B) *Store {
	b.Helper()
	s, err := OpenSQLite(b.Context(), b.TempDir()+"/hush.db")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(b.Context()); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCreatePush(b *testing.B) {
	s := benchStore(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := s.CreatePush(b.Context(), testPush(fmt.Sprint("bench-", i)), ev(push.EventCreation, t0)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClaimView(b *testing.B) {
	s := benchStore(b)
	var p *push.Push
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%1000 == 0 { // stay below the audit cap of a push
			p = testPush(fmt.Sprint("claim-", i))
			p.ExpireAfterViews, p.ExpireAfterDays = 1<<30, 90
			if err := s.CreatePush(b.Context(), p, ev(push.EventCreation, t0)); err != nil {
				b.Fatal(err)
			}
		}
		i++
		ok, _, err := claimView(b.Context(), s, p.ID, ev(push.EventView, t0))
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkClaimByKey claims views the way a retrieval does, one
// transaction each: a view that leaves views to come, and a push's last
// view (the pushes created before the timer starts).
func BenchmarkClaimByKey(b *testing.B) {
	b.Run("not-last", func(b *testing.B) {
		s := benchStore(b)
		var key string
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i%1000 == 0 { // stay below the audit cap of a push
				p := testPush(fmt.Sprint("claim-", i))
				p.ExpireAfterViews, p.ExpireAfterDays = 1<<30, 90
				if err := s.CreatePush(b.Context(), p, ev(push.EventCreation, t0)); err != nil {
					b.Fatal(err)
				}
				key = p.TokenKey
			}
			i++
			if p, err := s.ClaimByKey(b.Context(), key, ev(push.EventView, t0), nil); p == nil || err != nil {
				b.Fatal(p, err)
			}
		}
	})
	b.Run("last", func(b *testing.B) {
		s := benchStore(b)
		for i := range b.N {
			p := testPush(fmt.Sprint("last-", i))
			p.ExpireAfterViews, p.ExpireAfterDays = 1, 90
			if err := s.CreatePush(b.Context(), p, ev(push.EventCreation, t0)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			p, err := s.ClaimByKey(b.Context(), fmt.Sprint("last-", i), ev(push.EventView, t0), nil)
			if p == nil || err != nil || !p.Expired {
				b.Fatal(p, err)
			}
		}
	})
}

func BenchmarkPushByKey(b *testing.B) {
	s := benchStore(b)
	if err := s.CreatePush(b.Context(), testPush("lookup"), ev(push.EventCreation, t0)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.PushByKey(b.Context(), "lookup"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUserByTokenDigest(b *testing.B) {
	s := benchStore(b)
	u, err := s.CreateUser(b.Context(), "bench@example.com", "hash", t0)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.ReplaceToken(b.Context(), u.ID, "digest-of-token", t0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.UserByTokenDigest(b.Context(), "digest-of-token"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreatePushConcurrent creates from 32 goroutines at once, as
// concurrent requests do: their transactions share commits.
func BenchmarkCreatePushConcurrent(b *testing.B) {
	s := benchStore(b)
	b.ReportAllocs()
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := testPush(fmt.Sprint("bench-", n.Add(1)))
			if err := s.CreatePush(b.Context(), p, ev(push.EventCreation, t0)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkClaimViewConcurrent claims views of 32 pushes from 32 goroutines.
func BenchmarkClaimViewConcurrent(b *testing.B) {
	s := benchStore(b)
	b.ReportAllocs()
	b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		var p *push.Push
		for i := 0; pb.Next(); i++ {
			if i%1000 == 0 { // stay below the audit cap of a push
				p = testPush(fmt.Sprint("claim-", n.Add(1)))
				p.ExpireAfterViews, p.ExpireAfterDays = 1<<30, 90
				if err := s.CreatePush(b.Context(), p, ev(push.EventCreation, t0)); err != nil {
					b.Error(err)
					return
				}
			}
			if ok, _, err := claimView(b.Context(), s, p.ID, ev(push.EventView, t0)); err != nil || !ok {
				b.Error(ok, err)
				return
			}
		}
	})
}
