package store

import (
	"errors"
	"testing"

	"hush/internal/push"
)

func TestCreatePushes(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	batch := []*push.Push{testPush("bulk-a"), testPush("bulk-b"), testPush("bulk-c")}
	evs := []push.Event{ev(push.EventCreation, t0), ev(push.EventCreation, t0), ev(push.EventCreation, t0)}
	if err := s.CreatePushes(t.Context(), batch, evs); err != nil {
		t.Fatal(err)
	}
	for _, p := range batch {
		got := mustLoad(t, s, p.TokenKey)
		if got.ID != p.ID || got.LogCount != 1 || string(got.PayloadSealed) != "sealed:"+p.TokenKey || !got.ExpiresAt().Equal(p.ExpiresAt()) {
			t.Errorf("%s: stored %+v", p.TokenKey, got)
		}
		if log := mustAudit(t, s, p.ID); len(log) != 1 || log[0].Kind != push.EventCreation {
			t.Errorf("%s: audit log %s", p.TokenKey, kinds(log))
		}
	}

	// One taken token fails the whole batch.
	again := []*push.Push{testPush("bulk-d"), testPush("bulk-a")}
	err := s.CreatePushes(t.Context(), again, evs[:2])
	if push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("duplicate token: %v, want a conflict", err)
	}
	if _, err := s.PushByKey(t.Context(), "bulk-d"); !errors.Is(err, push.ErrNotFound) {
		t.Errorf("a failed batch stored part of itself: %v", err)
	}
	if err := s.CreatePushes(t.Context(), []*push.Push{testPush("bulk-e")}, nil); err == nil {
		t.Error("pushes without their events accepted")
	}
}
