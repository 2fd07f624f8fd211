package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func TestPerSecondBurstThenRefill(t *testing.T) {
	c := newClock()
	l := New(0, 5, c.now)
	for i := range 5 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d refused", i)
		}
	}
	ok, retry := l.Allow("a")
	if ok || retry <= 0 || retry > time.Second {
		t.Fatalf("6th request: ok=%v retry=%v", ok, retry)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Error("another client was refused")
	}
	c.add(time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("refused after a second")
	}
}

func TestPerMinuteLimit(t *testing.T) {
	c := newClock()
	l := New(10, 60, c.now)
	allowed := 0
	for range 30 {
		if ok, _ := l.Allow("a"); ok {
			allowed++
		}
		c.add(100 * time.Millisecond)
	}
	// 10 at once, then one every 6 s: 3 s of requests earn none.
	if allowed != 10 {
		t.Errorf("allowed %d in 3 s, want 10", allowed)
	}
	ok, retry := l.Allow("a")
	if ok || retry < time.Second || retry > 6*time.Second {
		t.Errorf("after the minute's allowance: ok=%v retry=%v", ok, retry)
	}
	c.add(6 * time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("refused after the refill interval")
	}
}

func TestRefusedRequestsCostNothing(t *testing.T) {
	c := newClock()
	l := New(100, 2, c.now)
	for range 50 { // a client hammering a closed second bucket
		l.Allow("a")
	}
	c.add(time.Second)
	for i := range 2 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d after a pause refused: refusals were charged", i)
		}
	}
}

func TestDisabled(t *testing.T) {
	l := New(0, 0, nil)
	if l.Enabled() {
		t.Fatal("enabled with zero limits")
	}
	for range 1000 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatal("a disabled limiter refused")
		}
	}
	if l.Len() != 0 {
		t.Error("a disabled limiter tracked clients")
	}
}

func TestMemoryBounded(t *testing.T) {
	c := newClock()
	l := New(120, 60, c.now)
	l.SetMaxKeys(1000)
	for i := range 10_000 {
		l.Allow(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		if l.Len() > 1000 {
			t.Fatalf("tracking %d clients", l.Len())
		}
	}
	// Idle clients are forgotten first: a busy client keeps its state.
	c.add(2 * time.Minute)
	for range 120 {
		l.Allow("busy")
	}
	if ok, _ := l.Allow("busy"); ok {
		t.Fatal("busy client not limited")
	}
	for i := range 1000 {
		l.Allow(fmt.Sprintf("fresh-%d", i))
		if i == 500 {
			if ok, _ := l.Allow("busy"); ok {
				t.Fatal("the busy client's state was evicted before idle ones")
			}
		}
	}
}

func TestConcurrentExactCount(t *testing.T) {
	l := New(100, 1000, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if ok, _ := l.Allow("a"); ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed < 100 || allowed > 101 { // one may refill during the run
		t.Errorf("allowed %d of 400, want 100", allowed)
	}
}
