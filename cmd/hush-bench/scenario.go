package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// worker is one load goroutine with its own tallies, merged at the end, so
// the hot path shares nothing but the HTTP client.
type worker struct {
	from, to time.Time // the measured window: only requests done inside it count
	hist     histogram
	fails    [failKinds]uint64
	firstErr string
	buf      bytes.Buffer
}

// record counts one request sent at sent (its intended time when open-loop)
// that ended now with err.
func (w *worker) record(sent time.Time, err error) {
	done := time.Now()
	if done.Before(w.from) || done.After(w.to) {
		return
	}
	w.hist.record(done.Sub(sent))
	if err != nil {
		w.count(err)
	}
}

// fail counts an error that is not a measured request (a failed replacement
// in the retrieve scenario), when it happens inside the window.
func (w *worker) fail(err error) {
	if now := time.Now(); !now.Before(w.from) && !now.After(w.to) {
		w.count(err)
	}
}

func (w *worker) count(err error) {
	var re *reqError
	if !errors.As(err, &re) {
		re = &reqError{failTransport, err.Error()}
	}
	w.fails[re.kind]++
	if w.firstErr == "" {
		w.firstErr = re.msg
	}
}

// scenario is one kind of load. op performs one iteration; sent is when it
// should have started (now, when closed-loop).
type scenario interface {
	prepare(ctx context.Context, conns int) error
	op(ctx context.Context, w *worker, sent time.Time)
}

func newScenario(name string, c *client) (scenario, error) {
	switch name {
	case "create":
		return &createScenario{c: c, body: c.createBody(5)}, nil
	case "cycle":
		return &cycleScenario{c: c, body: c.createBody(1)}, nil
	case "retrieve":
		return &retrieveScenario{c: c, body: c.createBody(retrieveViews), size: retrievePushes}, nil
	case "passphrase":
		if !c.api.passphrases {
			return nil, fmt.Errorf("-scenario passphrase: the %s dialect has no passphrase on the server", c.api.name)
		}
		return &retrieveScenario{c: c, body: c.createPassphraseBody(retrieveViews, benchPassphrase),
			size: passphrasePushes, passphrase: benchPassphrase}, nil
	}
	return nil, fmt.Errorf("-scenario %q: want %s", name, scenarioNames)
}

// scenarioNames lists the scenarios for messages.
const scenarioNames = "create, cycle, retrieve or passphrase"

func knownScenario(name string) bool {
	switch name {
	case "create", "cycle", "retrieve", "passphrase":
		return true
	}
	return false
}

// createScenario: POST a push with the default 5 views; one request.
type createScenario struct {
	c    *client
	body []byte
}

func (s *createScenario) prepare(context.Context, int) error { return nil }

func (s *createScenario) op(ctx context.Context, w *worker, sent time.Time) {
	_, err := s.c.create(ctx, s.body, &w.buf)
	w.record(sent, err)
}

// cycleScenario: POST a 1-view push, then GET it; two requests, each counted
// and timed. The GET must return the payload. When the POST fails there is
// nothing to GET.
type cycleScenario struct {
	c    *client
	body []byte
}

func (s *cycleScenario) prepare(context.Context, int) error { return nil }

func (s *cycleScenario) op(ctx context.Context, w *worker, sent time.Time) {
	token, err := s.c.create(ctx, s.body, &w.buf)
	w.record(sent, err)
	if err != nil {
		return
	}
	start := time.Now()
	w.record(start, s.c.retrieve(ctx, token, &w.buf))
}

// The retrieve scenario reads retrievePushes pushes of retrieveViews views
// each, created before the measured window and taken round-robin. The
// worker that takes a push's last view creates its replacement; those
// creates are not counted as requests (the report gives their number).
//
// The passphrase scenario is the same with passphrasePushes pushes created
// with benchPassphrase, each retrieved with ?passphrase=: on Hush every
// such create and retrieve derives a key with Argon2id, so fewer pushes are
// prepared.
const (
	retrievePushes   = 1000
	retrieveViews    = 100
	passphrasePushes = 50
	benchPassphrase  = "open sesame 42"
)

type retrieveScenario struct {
	c          *client
	body       []byte
	size       int
	passphrase string // sent with every retrieve when set
	slots      []retrieveSlot
	next       atomic.Uint64
	recreated  atomic.Uint64
}

type retrieveSlot struct {
	mu    sync.Mutex
	token string
	left  int // views not yet handed out; 0 while being replaced
}

func (s *retrieveScenario) prepare(ctx context.Context, conns int) error {
	s.slots = make([]retrieveSlot, s.size)
	var (
		wg      sync.WaitGroup
		next    atomic.Int64
		errOnce sync.Once
		first   error
	)
	for range min(conns, s.size) {
		wg.Go(func() {
			var buf bytes.Buffer
			for i := int(next.Add(1) - 1); i < s.size; i = int(next.Add(1) - 1) {
				token, err := s.c.create(ctx, s.body, &buf)
				if err != nil {
					errOnce.Do(func() { first = err })
					return
				}
				s.slots[i].token, s.slots[i].left = token, retrieveViews
			}
		})
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("creating the pushes to retrieve: %w", first)
	}
	return nil
}

func (s *retrieveScenario) op(ctx context.Context, w *worker, sent time.Time) {
	for skipped := 0; ctx.Err() == nil && time.Now().Before(w.to); skipped++ {
		slot := &s.slots[(s.next.Add(1)-1)%uint64(len(s.slots))]
		slot.mu.Lock()
		token, left := slot.token, slot.left
		if left > 0 {
			slot.left--
		}
		slot.mu.Unlock()
		if left == 0 { // being replaced by another worker: take the next one
			if skipped > 0 && skipped%len(s.slots) == 0 {
				time.Sleep(time.Millisecond)
			}
			continue
		}
		w.record(sent, s.c.retrieveWith(ctx, token, s.passphrase, &w.buf))
		if left == 1 {
			s.replace(ctx, slot, w)
		}
		return
	}
}

// replace creates a fresh push for a used-up slot.
func (s *retrieveScenario) replace(ctx context.Context, slot *retrieveSlot, w *worker) {
	token, err := s.c.create(ctx, s.body, &w.buf)
	if err != nil {
		w.fail(err) // the slot stays used up; workers skip it
		return
	}
	s.recreated.Add(1)
	slot.mu.Lock()
	slot.token, slot.left = token, retrieveViews
	slot.mu.Unlock()
}
