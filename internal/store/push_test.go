package store

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hush/internal/push"
)

func boolPtr(b bool) *bool { return &b }

func TestCreatePushRoundTrip(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	owner := mustUser(t, s, "owner@example.com")
	// Sub-millisecond parts are dropped: timestamps are stored in ms.
	created := t0.Add(123*time.Millisecond + 456*time.Microsecond + 789)
	wantCreated := t0.Add(123 * time.Millisecond)

	tests := []struct {
		name string
		p    push.Push
	}{
		{name: "text anonymous no passphrase", p: push.Push{
			TokenKey: "t-anon", Kind: push.KindText, PayloadSealed: []byte{0, 1, 2, 0xff, 0xfe, 0},
			ExpireAfterDays: 7, ExpireAfterViews: 5, DeletableByViewer: boolPtr(false), CreatedAt: created}},
		{name: "text owned with everything", p: push.Push{
			TokenKey: "t-owned", Kind: push.KindText, UserID: owner.ID, Name: "db creds ✓",
			NoteSealed: []byte("note\x00sealed"), PayloadSealed: []byte("payload\x00sealed"),
			PassphraseSalt: []byte{9, 8, 7, 6}, ExpireAfterDays: 90, ExpireAfterViews: 100,
			DeletableByViewer: boolPtr(true), RetrievalStep: true, CreatedAt: created}},
		{name: "url deletable nil", p: push.Push{
			TokenKey: "u-1", Kind: push.KindURL, PayloadSealed: []byte("https://example.com"),
			ExpireAfterDays: 1, ExpireAfterViews: 1, CreatedAt: created}},
		{name: "qr with passphrase", p: push.Push{
			TokenKey: "q-1", Kind: push.KindQR, PayloadSealed: []byte("qr"), PassphraseSalt: []byte("salt"),
			ExpireAfterDays: 3, ExpireAfterViews: 2, DeletableByViewer: boolPtr(false), CreatedAt: created}},
		{name: "file owned", p: push.Push{
			TokenKey: "f-1", Kind: push.KindFile, UserID: owner.ID, PayloadSealed: []byte("f"),
			ExpireAfterDays: 2, ExpireAfterViews: 9, DeletableByViewer: boolPtr(true), CreatedAt: created}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.p
			creation := push.Event{Kind: push.EventCreation, IP: "203.0.113.9", UserAgent: "curl/8",
				Referrer: "https://r/", UserID: in.UserID, CreatedAt: created}
			if err := s.CreatePush(t.Context(), &in, creation); err != nil {
				t.Fatalf("CreatePush: %v", err)
			}
			if in.ID == 0 || in.LogCount != 1 {
				t.Fatalf("after CreatePush ID=%d LogCount=%d, want ID>0 and LogCount 1", in.ID, in.LogCount)
			}
			got := mustLoad(t, s, tc.p.TokenKey)
			want := tc.p
			checks := []struct {
				field string
				ok    bool
			}{
				{"ID", got.ID == in.ID},
				{"TokenKey", got.TokenKey == want.TokenKey},
				{"Kind", got.Kind == want.Kind},
				{"UserID", got.UserID == want.UserID},
				{"Name", got.Name == want.Name},
				{"NoteSealed", bytes.Equal(got.NoteSealed, want.NoteSealed) && (got.NoteSealed == nil) == (want.NoteSealed == nil)},
				{"PayloadSealed", bytes.Equal(got.PayloadSealed, want.PayloadSealed) && got.PayloadSealed != nil},
				{"PassphraseSalt", bytes.Equal(got.PassphraseSalt, want.PassphraseSalt) && (got.PassphraseSalt == nil) == (want.PassphraseSalt == nil)},
				{"HasPassphrase", got.HasPassphrase == (want.PassphraseSalt != nil)},
				{"ExpireAfterDays", got.ExpireAfterDays == want.ExpireAfterDays},
				{"ExpireAfterViews", got.ExpireAfterViews == want.ExpireAfterViews},
				{"DeletableByViewer", (got.DeletableByViewer == nil) == (want.DeletableByViewer == nil) &&
					(want.DeletableByViewer == nil || *got.DeletableByViewer == *want.DeletableByViewer)},
				{"RetrievalStep", got.RetrievalStep == want.RetrievalStep},
				{"ViewCount", got.ViewCount == 0},
				{"LogCount", got.LogCount == 1},
				{"Expired", !got.Expired},
				{"Deleted", !got.Deleted},
				{"ExpiredOn", got.ExpiredOn.IsZero()},
				{"CreatedAt", got.CreatedAt.Equal(wantCreated) && got.CreatedAt.Location() == time.UTC},
				{"UpdatedAt", got.UpdatedAt.Equal(wantCreated)},
				{"ExpiresAt", got.ExpiresAt().Equal(wantCreated.Add(time.Duration(want.ExpireAfterDays) * push.Day))},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s differs: got %+v, want %+v", c.field, got, want)
				}
			}
			log := mustAudit(t, s, in.ID)
			if len(log) != 1 {
				t.Fatalf("audit log = %v, want one creation entry", kinds(log))
			}
			wantEv := creation
			wantEv.CreatedAt = wantCreated
			if log[0] != wantEv {
				t.Fatalf("creation entry = %+v, want %+v", log[0], wantEv)
			}
		})
	}
}

func TestCreatePushDuplicateToken(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	first := createPush(t, s, "dup", nil)

	second := testPush("dup")
	second.PayloadSealed = []byte("other")
	err := s.CreatePush(t.Context(), second, ev(push.EventCreation, t0.Add(time.Hour)))
	if push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("duplicate CreatePush err = %v (code %q), want code %q", err, push.ErrorCode(err), push.CodeConflict)
	}
	got := mustLoad(t, s, "dup")
	if got.ID != first.ID || string(got.PayloadSealed) != "sealed:dup" {
		t.Fatalf("original push changed: %+v", got)
	}
	var total int
	if err := s.r.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM audit_logs`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != 1 {
		t.Fatalf("audit_logs holds %d rows after a rejected duplicate, want 1", total)
	}
}

func TestPushByKeyNotFound(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	createPush(t, s, "exists", nil)
	for _, token := range []string{"missing", "", "EXISTS", "exists "} {
		p, err := s.PushByKey(t.Context(), token)
		if p != nil || !errors.Is(err, push.ErrNotFound) || push.ErrorCode(err) != push.CodeNotFound {
			t.Errorf("PushByKey(%q) = %v, %v; want nil, ErrNotFound", token, p, err)
		}
	}
}

// TestClaimViewSequence claims the three views of a push one by one, then a
// fourth: each view is counted and logged, leaving updated_at alone (as
// Password Pusher does), the last one expires the push (setting updated_at)
// and wipes its secret material but keeps its name and note, and the
// fourth is refused without a trace.
func TestClaimViewSequence(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "three", func(p *push.Push) {
		p.ExpireAfterViews = 3
		p.PassphraseSalt = []byte("salt")
		p.NoteSealed = []byte("note")
		p.Name = "name"
	})
	for i := 1; i <= 3; i++ {
		if !t.Run(fmt.Sprintf("view %d of 3", i), func(t *testing.T) {
			at := t0.Add(time.Duration(i) * time.Hour)
			e := push.Event{Kind: push.EventView, IP: "198.51.100.1", UserAgent: "ua", UserID: int64(i), CreatedAt: at}
			claimed, views, err := claimView(t.Context(), s, p.ID, e)
			if err != nil || !claimed || views != i {
				t.Fatalf("claim = %v, %d, %v; want true, %d, nil", claimed, views, err, i)
			}
			got := mustLoad(t, s, "three")
			wantUpdated := p.CreatedAt
			if i == 3 {
				wantUpdated = at
			}
			if got.ViewCount != i || !got.UpdatedAt.Equal(wantUpdated) || got.LogCount != 1+i {
				t.Fatalf("ViewCount=%d UpdatedAt=%v LogCount=%d", got.ViewCount, got.UpdatedAt, got.LogCount)
			}
			if i == 3 {
				checkLastViewed(t, got, at)
			} else if got.Expired || string(got.PayloadSealed) != "sealed:three" || !got.HasPassphrase || !got.ExpiredOn.IsZero() {
				t.Fatalf("Expired %v payload %q HasPassphrase %v ExpiredOn %v", got.Expired, got.PayloadSealed, got.HasPassphrase, got.ExpiredOn)
			}
			if log := mustAudit(t, s, p.ID); len(log) != 1+i || log[i] != e {
				t.Fatalf("audit log %+v, want last entry %+v", log, e)
			}
		}) {
			return
		}
	}
	t.Run("a 4th view", func(t *testing.T) {
		claimed, views, err := claimView(t.Context(), s, p.ID, ev(push.EventView, t0.Add(4*time.Hour)))
		if err != nil || claimed || views != 0 {
			t.Fatalf("claim = %v, %d, %v; want false, 0, nil", claimed, views, err)
		}
		got := mustLoad(t, s, "three")
		if got.ViewCount != 3 || !got.ExpiredOn.Equal(t0.Add(3*time.Hour)) {
			t.Fatalf("changed the push: ViewCount=%d ExpiredOn=%v", got.ViewCount, got.ExpiredOn)
		}
		if log := mustAudit(t, s, p.ID); kinds(log) != "creation,view,view,view" {
			t.Fatalf("audit log = %s", kinds(log))
		}
	})
}

// checkLastViewed checks a push whose last view was claimed at: expired
// then, its secret material gone, its name and note kept.
func checkLastViewed(t *testing.T, got *push.Push, at time.Time) {
	t.Helper()
	if !got.Expired || !got.ExpiredOn.Equal(at) || got.Deleted {
		t.Fatalf("Expired=%v ExpiredOn=%v Deleted=%v, want true %v false", got.Expired, got.ExpiredOn, got.Deleted, at)
	}
	if got.PayloadSealed != nil || got.PassphraseSalt != nil || got.HasPassphrase {
		t.Fatalf("secret material left: payload %q salt %q", got.PayloadSealed, got.PassphraseSalt)
	}
	if got.Name != "name" || string(got.NoteSealed) != "note" {
		t.Fatalf("expiry dropped name/note: %q %q", got.Name, got.NoteSealed)
	}
}

// TestClaimViewViewsUsedUp covers a push whose views were used up by failed
// views before anything expired it: no view is left to claim.
func TestClaimViewViewsUsedUp(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "used", func(p *push.Push) { p.ExpireAfterViews = 2 })
	if ok, _, err := claimView(t.Context(), s, p.ID, ev(push.EventView, t0)); err != nil || !ok {
		t.Fatalf("first claim = %v, %v", ok, err)
	}
	if err := s.RecordFailedView(t.Context(), p.ID, ev(push.EventFailedView, t0)); err != nil {
		t.Fatal(err)
	}
	if got := mustLoad(t, s, "used"); got.ViewCount != 2 || got.Expired {
		t.Fatalf("setup: ViewCount=%d Expired=%v, want 2 false", got.ViewCount, got.Expired)
	}
	claimed, _, err := claimView(t.Context(), s, p.ID, ev(push.EventView, t0.Add(time.Minute)))
	if err != nil || claimed {
		t.Fatalf("claim with no views left = %v, %v; want false", claimed, err)
	}
	if got := mustLoad(t, s, "used"); got.ViewCount != 2 || countKind(mustAudit(t, s, p.ID), push.EventView) != 1 {
		t.Fatalf("refused claim counted: ViewCount=%d", got.ViewCount)
	}
}

func TestClaimViewUnknownPush(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	claimed, views, err := claimView(t.Context(), s, 12345, ev(push.EventView, t0))
	if err != nil || claimed || views != 0 {
		t.Fatalf("ClaimView(unknown) = %v, %d, %v; want false, 0, nil", claimed, views, err)
	}
	if n := auditRows(t, s, 12345); n != 0 {
		t.Fatalf("audit rows for unknown push = %d", n)
	}
}

func TestClaimViewDayLimit(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	tests := []struct {
		name  string
		at    time.Time
		claim bool
	}{
		{"just before the limit", t0.Add(2*push.Day - time.Millisecond), true},
		{"exactly at the limit", t0.Add(2 * push.Day), false},
		{"long after the limit", t0.Add(30 * push.Day), false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := createPush(t, s, tok(i), func(p *push.Push) { p.ExpireAfterDays = 2 })
			claimed, views, err := claimView(t.Context(), s, p.ID, ev(push.EventView, tc.at))
			if err != nil || claimed != tc.claim {
				t.Fatalf("ClaimView at %v = %v, %d, %v; want claimed %v", tc.at, claimed, views, err, tc.claim)
			}
			got := mustLoad(t, s, p.TokenKey)
			wantViews := 0
			if tc.claim {
				wantViews = 1
			}
			if got.ViewCount != wantViews || countKind(mustAudit(t, s, p.ID), push.EventView) != wantViews {
				t.Fatalf("ViewCount=%d view entries=%d, want %d", got.ViewCount, countKind(mustAudit(t, s, p.ID), push.EventView), wantViews)
			}
			if got.PayloadSealed == nil && !got.Expired {
				t.Fatalf("payload gone but push not expired")
			}
		})
	}
}

func TestClaimViewRefusedWhenExpired(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "gone", nil)
	if ok, err := s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, t0.Add(time.Minute))); err != nil || !ok {
		t.Fatalf("ExpireByHand = %v, %v", ok, err)
	}
	claimed, _, err := claimView(t.Context(), s, p.ID, ev(push.EventView, t0.Add(2*time.Minute)))
	if err != nil || claimed {
		t.Fatalf("ClaimView on expired push = %v, %v; want false", claimed, err)
	}
	if got := mustLoad(t, s, "gone"); got.ViewCount != 0 {
		t.Fatalf("ViewCount = %d, want 0", got.ViewCount)
	}
}

func TestClaimViewConcurrent(t *testing.T) {
	t.Parallel()
	const (
		rounds  = 20
		readers = 64
	)
	s := newTestStore(t)
	for _, views := range []int{1, 3} {
		for round := range rounds {
			p := createPush(t, s, tok(views*1000+round), func(p *push.Push) { p.ExpireAfterViews = views })
			type result struct {
				claimed bool
				views   int
				err     error
			}
			results := make(chan result, readers)
			start := make(chan struct{})
			for g := range readers {
				go func() {
					<-start
					at := t0.Add(time.Duration(g) * time.Millisecond)
					c, v, err := claimView(t.Context(), s, p.ID, ev(push.EventView, at))
					results <- result{c, v, err}
				}()
			}
			close(start)
			seen := map[int]bool{}
			for range readers {
				r := <-results
				if r.err != nil {
					t.Fatalf("views %d round %d: ClaimView: %v", views, round, r.err)
				}
				if r.claimed {
					if r.views < 1 || r.views > views || seen[r.views] {
						t.Fatalf("views %d round %d: claim returned view count %d (seen %v)", views, round, r.views, seen)
					}
					seen[r.views] = true
				}
			}
			if len(seen) != views {
				t.Fatalf("views %d round %d: %d claims succeeded, want exactly %d", views, round, len(seen), views)
			}
			got := mustLoad(t, s, p.TokenKey)
			if got.ViewCount != views || !got.Expired || got.PayloadSealed != nil {
				t.Fatalf("views %d round %d: push after claims ViewCount=%d Expired=%v payload=%q",
					views, round, got.ViewCount, got.Expired, got.PayloadSealed)
			}
			if n := countKind(mustAudit(t, s, p.ID), push.EventView); n != views {
				t.Fatalf("views %d round %d: %d view audit entries, want %d", views, round, n, views)
			}
		}
	}
}

// TestAuditCap checks that entries that count no view stop short of the
// audit cap by the room the push's remaining views and its expiry need, so
// that they can never use up what views need: every view left is still
// claimed and logged, and the cap never expires the push.
func TestAuditCap(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	const views = 3
	p := createPush(t, s, "cap", func(p *push.Push) { p.ExpireAfterViews = views })
	at := t0.Add(time.Hour)
	for range push.MaxAuditLogs {
		if err := s.LogEvent(t.Context(), p.ID, ev(push.EventFailedPassphrase, at)); err != nil {
			t.Fatalf("LogEvent: %v", err)
		}
	}
	// Room is kept for 3 views and the expiry.
	full := push.MaxAuditLogs - views - 1
	if n := auditRows(t, s, p.ID); n != full {
		t.Fatalf("non-counting entries filled %d rows, want %d", n, full)
	}
	got := mustLoad(t, s, "cap")
	if got.LogCount != full || got.Expired {
		t.Fatalf("at cap LogCount=%d Expired=%v, want %d false", got.LogCount, got.Expired, full)
	}
	for i := 1; i <= views; i++ {
		claimed, n, err := claimView(t.Context(), s, p.ID, ev(push.EventView, at.Add(time.Duration(i)*time.Minute)))
		if err != nil || !claimed || n != i {
			t.Fatalf("view %d with a full log = %v, %d, %v; want claimed", i, claimed, n, err)
		}
		// Between views, nothing else squeezes in.
		if err := s.LogEvent(t.Context(), p.ID, ev(push.EventOwnerView, at)); err != nil {
			t.Fatal(err)
		}
	}
	got = mustLoad(t, s, "cap")
	if !got.Expired || got.PayloadSealed != nil || got.ViewCount != views {
		t.Fatalf("after the last view: Expired=%v payload=%q ViewCount=%d", got.Expired, got.PayloadSealed, got.ViewCount)
	}
	if n := countKind(mustAudit(t, s, p.ID), push.EventView); n != views {
		t.Fatalf("%d view entries, want %d", n, views)
	}
	if n := auditRows(t, s, p.ID); n > push.MaxAuditLogs {
		t.Fatalf("audit log holds %d rows, above the cap %d", n, push.MaxAuditLogs)
	}

	// Retrievals after expiry still count, and are logged while room is left.
	before := auditRows(t, s, p.ID)
	if err := s.RecordFailedView(t.Context(), p.ID, ev(push.EventFailedView, at)); err != nil {
		t.Fatalf("RecordFailedView at cap: %v", err)
	}
	if got := mustLoad(t, s, "cap"); got.ViewCount != views+1 {
		t.Fatalf("failed view: ViewCount=%d", got.ViewCount)
	}
	if n := auditRows(t, s, p.ID); n != min(before+1, push.MaxAuditLogs) {
		t.Fatalf("failed view: %d rows, was %d", n, before)
	}
}

// TestAuditCapKeepsRoomForExpiry checks that a push whose log is full of
// entries that count nothing can still be expired by hand, and the expiry
// is logged.
func TestAuditCapKeepsRoomForExpiry(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "slot", func(p *push.Push) { p.ExpireAfterViews = 1 })
	for range push.MaxAuditLogs {
		if err := s.LogEvent(t.Context(), p.ID, ev(push.EventOwnerView, t0)); err != nil {
			t.Fatal(err)
		}
	}
	changed, err := s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, t0.Add(time.Hour)))
	if err != nil || !changed {
		t.Fatalf("ExpireByHand with a full log = %v, %v", changed, err)
	}
	log := mustAudit(t, s, p.ID)
	if len(log) > push.MaxAuditLogs || log[len(log)-1].Kind != push.EventExpire {
		t.Fatalf("audit log len %d, last %v; want the expiry logged within the cap", len(log), log[len(log)-1].Kind)
	}
}

func TestRecordFailedView(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "fv", func(p *push.Push) { p.ExpireAfterViews = 1 })
	if ok, err := s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, t0.Add(time.Minute))); err != nil || !ok {
		t.Fatalf("ExpireByHand = %v, %v", ok, err)
	}
	for i := 1; i <= 2; i++ {
		e := push.Event{Kind: push.EventFailedView, IP: "10.0.0.1", UserAgent: "ua", Referrer: "r", CreatedAt: t0.Add(time.Duration(i) * time.Hour)}
		if err := s.RecordFailedView(t.Context(), p.ID, e); err != nil {
			t.Fatalf("RecordFailedView: %v", err)
		}
		got := mustLoad(t, s, "fv")
		if got.ViewCount != i || got.LogCount != 2+i {
			t.Fatalf("after %d failed views ViewCount=%d LogCount=%d", i, got.ViewCount, got.LogCount)
		}
		log := mustAudit(t, s, p.ID)
		if len(log) != 2+i || log[len(log)-1] != e {
			t.Fatalf("after %d failed views audit log %+v, want last %+v", i, log, e)
		}
	}
	if k := kinds(mustAudit(t, s, p.ID)); k != "creation,expire,failed_view,failed_view" {
		t.Fatalf("audit kinds = %s", k)
	}
}

func TestExpireByHand(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "del", func(p *push.Push) {
		p.Name = "keep name"
		p.NoteSealed = []byte("keep note")
		p.PassphraseSalt = []byte("salt")
	})
	at := t0.Add(90 * time.Minute)
	e := push.Event{Kind: push.EventExpire, IP: "192.0.2.7", UserAgent: "owner-ua", UserID: 42, CreatedAt: at}
	changed, err := s.ExpireByHand(t.Context(), p.ID, e)
	if err != nil || !changed {
		t.Fatalf("first ExpireByHand = %v, %v; want true", changed, err)
	}
	got := mustLoad(t, s, "del")
	if !got.Expired || !got.Deleted || got.PayloadSealed != nil || got.PassphraseSalt != nil || got.HasPassphrase {
		t.Fatalf("after ExpireByHand: %+v", got)
	}
	if !got.ExpiredOn.Equal(at) || !got.UpdatedAt.Equal(at) {
		t.Fatalf("ExpiredOn=%v UpdatedAt=%v, want %v", got.ExpiredOn, got.UpdatedAt, at)
	}
	if got.Name != "keep name" || string(got.NoteSealed) != "keep note" || got.ExpireAfterViews != 5 {
		t.Fatalf("expiry lost metadata: name %q note %q", got.Name, got.NoteSealed)
	}
	log := mustAudit(t, s, p.ID)
	if len(log) != 2 || log[1] != e {
		t.Fatalf("audit log %+v, want creation then %+v", log, e)
	}

	changed, err = s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, at.Add(time.Hour)))
	if err != nil || changed {
		t.Fatalf("second ExpireByHand = %v, %v; want false", changed, err)
	}
	if n := auditRows(t, s, p.ID); n != 2 {
		t.Fatalf("second ExpireByHand logged: %d rows", n)
	}
	if got := mustLoad(t, s, "del"); !got.ExpiredOn.Equal(at) {
		t.Fatalf("second ExpireByHand moved ExpiredOn to %v", got.ExpiredOn)
	}

	// A push expired by its views is not marked deleted by a later DELETE.
	q := createPush(t, s, "used", func(p *push.Push) { p.ExpireAfterViews = 1 })
	if ok, _, err := claimView(t.Context(), s, q.ID, ev(push.EventView, t0)); err != nil || !ok {
		t.Fatalf("ClaimView = %v, %v", ok, err)
	}
	if changed, err := s.ExpireByHand(t.Context(), q.ID, ev(push.EventExpire, at)); err != nil || changed {
		t.Fatalf("ExpireByHand on used-up push = %v, %v; want false", changed, err)
	}
	if got := mustLoad(t, s, "used"); got.Deleted {
		t.Fatalf("used-up push marked Deleted")
	}

	if changed, err := s.ExpireByHand(t.Context(), 999999, ev(push.EventExpire, at)); err != nil || changed {
		t.Fatalf("ExpireByHand(unknown) = %v, %v", changed, err)
	}
}

func TestExpireIfDue(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	tests := []struct {
		name        string
		days, views int
		failedViews int
		now         time.Time
		want        bool
	}{
		{name: "not due", days: 2, views: 2, failedViews: 1, now: t0.Add(2*push.Day - time.Millisecond)},
		{name: "due by days exactly", days: 2, views: 5, now: t0.Add(2 * push.Day), want: true},
		{name: "due by days later", days: 1, views: 5, now: t0.Add(10 * push.Day), want: true},
		{name: "due by views equal", days: 7, views: 1, failedViews: 1, now: t0.Add(time.Hour), want: true},
		{name: "due by views above", days: 7, views: 2, failedViews: 3, now: t0.Add(time.Hour), want: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := createPush(t, s, tok(i), func(p *push.Push) {
				p.ExpireAfterDays, p.ExpireAfterViews = tc.days, tc.views
				p.PassphraseSalt = []byte("salt")
			})
			for range tc.failedViews {
				if err := s.RecordFailedView(t.Context(), p.ID, ev(push.EventFailedView, t0)); err != nil {
					t.Fatal(err)
				}
			}
			got, err := expireIfDue(t.Context(), s, p.ID, tc.now)
			if err != nil || got != tc.want {
				t.Fatalf("ExpireIfDue = %v, %v; want %v", got, err, tc.want)
			}
			after := mustLoad(t, s, p.TokenKey)
			if after.Expired != tc.want || (after.PayloadSealed == nil) != tc.want || after.HasPassphrase == tc.want {
				t.Fatalf("after ExpireIfDue: Expired=%v payload=%q HasPassphrase=%v", after.Expired, after.PayloadSealed, after.HasPassphrase)
			}
			if tc.want {
				if !after.ExpiredOn.Equal(tc.now) || after.Deleted {
					t.Fatalf("ExpiredOn=%v Deleted=%v, want %v false", after.ExpiredOn, after.Deleted, tc.now)
				}
				again, err := expireIfDue(t.Context(), s, p.ID, tc.now.Add(time.Hour))
				if err != nil || again {
					t.Fatalf("second ExpireIfDue = %v, %v; want false", again, err)
				}
				if after := mustLoad(t, s, p.TokenKey); !after.ExpiredOn.Equal(tc.now) {
					t.Fatalf("second ExpireIfDue moved ExpiredOn to %v", after.ExpiredOn)
				}
			}
		})
	}
}

func TestListPushes(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	alice := mustUser(t, s, "alice@example.com")
	bob := mustUser(t, s, "bob@example.com")
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	own := func(uid int64, h int) func(*push.Push) {
		return func(p *push.Push) { p.UserID, p.CreatedAt = uid, at(h) }
	}
	// Alice: a1..a5 active (a3 and a4 share created_at), e1, e2 expired.
	createPush(t, s, "a1", own(alice.ID, 1))
	createPush(t, s, "a2", own(alice.ID, 2))
	createPush(t, s, "a3", own(alice.ID, 3))
	createPush(t, s, "a4", own(alice.ID, 3))
	createPush(t, s, "a5", own(alice.ID, 5))
	e1 := createPush(t, s, "e1", own(alice.ID, 4))
	e2 := createPush(t, s, "e2", own(alice.ID, 6))
	createPush(t, s, "b1", own(bob.ID, 10))
	createPush(t, s, "anon1", own(0, 11))
	createPush(t, s, "anon2", own(0, 12))
	for _, p := range []*push.Push{e1, e2} {
		if ok, err := s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, at(20))); err != nil || !ok {
			t.Fatalf("ExpireByHand: %v %v", ok, err)
		}
	}

	tests := []struct {
		name          string
		user          int64
		expired       bool
		limit, offset int
		want          []string
	}{
		{"alice active", alice.ID, false, 100, 0, []string{"a5", "a4", "a3", "a2", "a1"}},
		{"alice expired", alice.ID, true, 100, 0, []string{"e2", "e1"}},
		{"alice page 1", alice.ID, false, 2, 0, []string{"a5", "a4"}},
		{"alice page 2", alice.ID, false, 2, 2, []string{"a3", "a2"}},
		{"alice page 3", alice.ID, false, 2, 4, []string{"a1"}},
		{"alice past the end", alice.ID, false, 2, 6, []string{}},
		{"alice expired past the end", alice.ID, true, 10, 2, []string{}},
		{"bob active", bob.ID, false, 100, 0, []string{"b1"}},
		{"bob expired", bob.ID, true, 100, 0, []string{}},
		{"anonymous active", 0, false, 100, 0, []string{}},
		{"anonymous expired", 0, true, 100, 0, []string{}},
		{"unknown user", 9999, false, 100, 0, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			list, err := s.ListPushes(t.Context(), tc.user, tc.expired, tc.limit, tc.offset)
			if err != nil {
				t.Fatalf("ListPushes: %v", err)
			}
			if list == nil {
				t.Fatalf("ListPushes returned nil, want an empty slice")
			}
			got := tokens(list)
			if len(got) != len(tc.want) {
				t.Fatalf("ListPushes = %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("ListPushes = %v, want %v", got, tc.want)
				}
				if list[i].UserID != tc.user || list[i].Expired != tc.expired {
					t.Fatalf("listed push %s has UserID %d Expired %v", got[i], list[i].UserID, list[i].Expired)
				}
			}
		})
	}
}

func TestAuditLogOrderFieldsPaging(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	p := createPush(t, s, "log", nil)
	long := ""
	for range 300 {
		long += "é" // two bytes each: truncation counts characters
	}
	evs := []push.Event{
		{Kind: push.EventOwnerView, IP: "2001:db8::1", UserAgent: long, Referrer: "x" + long, UserID: 7, CreatedAt: t0.Add(3 * time.Hour)},
		{Kind: push.EventFailedPassphrase, IP: "192.0.2.2", UserAgent: "short", CreatedAt: t0.Add(1 * time.Hour)},
		{Kind: push.EventAdminView, IP: "", CreatedAt: t0.Add(2*time.Hour + 5*time.Millisecond)},
	}
	for _, e := range evs {
		if err := s.LogEvent(t.Context(), p.ID, e); err != nil {
			t.Fatal(err)
		}
	}
	log := mustAudit(t, s, p.ID)
	// Oldest first means insertion order, whatever the event times say.
	if k := kinds(log); k != "creation,owner_view,failed_passphrase,admin_view" {
		t.Fatalf("audit order = %s", k)
	}
	first := log[1]
	if n := len([]rune(first.UserAgent)); n != 255 || first.UserAgent != long[:255*2] {
		t.Fatalf("user agent kept %d characters, want 255", n)
	}
	if n := len([]rune(first.Referrer)); n != 255 || first.Referrer != push.Truncate255("x"+long) {
		t.Fatalf("referrer kept %d characters, want 255", n)
	}
	if first.IP != "2001:db8::1" || first.UserID != 7 || !first.CreatedAt.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("entry fields = %+v", first)
	}
	if log[2] != evs[1] || log[3] != evs[2] {
		t.Fatalf("entries = %+v, want %+v", log[2:], evs[1:])
	}
	if log[3].CreatedAt.Location() != time.UTC {
		t.Fatalf("CreatedAt location = %v, want UTC", log[3].CreatedAt.Location())
	}

	pages := []struct {
		limit, offset int
		want          string
	}{
		{2, 0, "creation,owner_view"},
		{2, 2, "failed_passphrase,admin_view"},
		{2, 3, "admin_view"},
		{1, 1, "owner_view"},
	}
	for _, pg := range pages {
		got, err := s.AuditLog(t.Context(), p.ID, pg.limit, pg.offset)
		if err != nil || kinds(got) != pg.want {
			t.Errorf("AuditLog(limit %d, offset %d) = %s, %v; want %s", pg.limit, pg.offset, kinds(got), err, pg.want)
		}
	}
	for _, c := range []struct {
		id            int64
		limit, offset int
	}{{p.ID, 10, 4}, {p.ID, 10, 100}, {p.ID + 1000, 10, 0}} {
		got, err := s.AuditLog(t.Context(), c.id, c.limit, c.offset)
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("AuditLog(%d, %d, %d) = %#v, %v; want empty non-nil", c.id, c.limit, c.offset, got, err)
		}
	}
}

// TestSubDayExpiry: a push with a sub-day time limit keeps it exactly in
// the database (expires_at), and a view, an expiry at access and the
// sweeper all honour it to the millisecond (docs/decisions.md, D4).
func TestSubDayExpiry(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	limit := 15 * time.Minute
	mk := func(token string) *push.Push {
		return createPush(t, s, token, func(p *push.Push) { p.ExpireAfterDays, p.ExpireAfter = 1, limit })
	}
	p, q := mk("claimed"), mk("accessed")
	mk("swept")
	got := mustLoad(t, s, "claimed")
	if got.ExpireAfter != limit || !got.ExpiresAt().Equal(t0.Add(limit)) || got.ExpireAfterDays != 1 {
		t.Fatalf("loaded ExpireAfter %v ExpiresAt %v days %d; want %v, %v, 1", got.ExpireAfter, got.ExpiresAt(), got.ExpireAfterDays, limit, t0.Add(limit))
	}
	createPush(t, s, "days", nil)
	if day := mustLoad(t, s, "days"); day.ExpireAfter != 0 {
		t.Errorf("a push of whole days loaded with ExpireAfter %v", day.ExpireAfter)
	}
	justBefore := t0.Add(limit - time.Millisecond)
	if claimed, _, err := claimView(t.Context(), s, p.ID, ev(push.EventView, justBefore)); err != nil || !claimed {
		t.Fatalf("a view 1ms before the limit: %v, %v", claimed, err)
	}
	if claimed, _, err := claimView(t.Context(), s, p.ID, ev(push.EventView, t0.Add(limit))); err != nil || claimed {
		t.Fatalf("a view at the limit: %v, %v; want refused", claimed, err)
	}
	if e, err := s.ExpireIfDue(t.Context(), q.ID, justBefore); err != nil || e != nil {
		t.Fatalf("ExpireIfDue 1ms before the limit: %v, %v", e, err)
	}
	if e, err := s.ExpireIfDue(t.Context(), q.ID, t0.Add(limit)); err != nil || e == nil || !e.Expired {
		t.Fatalf("ExpireIfDue at the limit: %+v, %v", e, err)
	}
	if res, err := s.Sweep(t.Context(), justBefore, 0); err != nil || res.Expired != 0 {
		t.Fatalf("Sweep 1ms before the limit: %+v, %v", res, err)
	}
	// The push claimed above and the swept one are due; q is expired already.
	if res, err := s.Sweep(t.Context(), t0.Add(limit), 0); err != nil || res.Expired != 2 {
		t.Fatalf("Sweep at the limit: %+v, %v; want 2 expired", res, err)
	}
	if got := mustLoad(t, s, "swept"); !got.Expired || !got.ExpiredOn.Equal(t0.Add(limit)) || got.PayloadSealed != nil {
		t.Fatalf("swept push: Expired %v ExpiredOn %v payload %q", got.Expired, got.ExpiredOn, got.PayloadSealed)
	}
}

// TestClaimByKey claims the views of a push in one statement each: 64
// concurrent callers get exactly its 3 views, each logged; the last one
// returns the payload and leaves the row expired and wiped. Pushes that
// need opening before a view is spent (a passphrase, files) and pushes
// that are not active are not claimed, and left untouched.
func TestClaimByKey(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	createPush(t, s, "three", func(p *push.Push) { p.ExpireAfterViews = 3 })
	var wg sync.WaitGroup
	var claimed, last atomic.Int32
	for range 64 {
		wg.Go(func() {
			p, err := s.ClaimByKey(t.Context(), "three", ev(push.EventView, t0.Add(time.Minute)), nil)
			if err != nil {
				t.Error(err)
				return
			}
			if p == nil {
				return
			}
			claimed.Add(1)
			if string(p.PayloadSealed) != "sealed:three" {
				t.Errorf("claim returned payload %q", p.PayloadSealed)
			}
			if p.Expired {
				last.Add(1)
			}
		})
	}
	wg.Wait()
	if claimed.Load() != 3 || last.Load() != 1 {
		t.Fatalf("64 concurrent claims of 3 views: %d claimed, %d last", claimed.Load(), last.Load())
	}
	got := mustLoad(t, s, "three")
	if !got.Expired || got.PayloadSealed != nil || got.ViewCount != 3 || countKind(mustAudit(t, s, got.ID), push.EventView) != 3 {
		t.Fatalf("after the last view: Expired=%v payload=%q views=%d", got.Expired, got.PayloadSealed, got.ViewCount)
	}

	createPush(t, s, "guarded", func(p *push.Push) { p.PassphraseSalt = []byte("salt") })
	withFile := testPush("with-file")
	if err := s.CreatePushWithFiles(t.Context(), withFile, ev(push.EventCreation, t0),
		[]*push.File{{BlobID: "blob-claim", MetaSealed: []byte("m"), KeySealed: []byte("k"), Size: 1}}); err != nil {
		t.Fatal(err)
	}
	createPush(t, s, "old", func(p *push.Push) { p.ExpireAfterDays = 1 })
	for key, at := range map[string]time.Time{"guarded": t0, "with-file": t0, "old": t0.Add(push.Day), "missing": t0} {
		p, err := s.ClaimByKey(t.Context(), key, ev(push.EventView, at), nil)
		if p != nil || err != nil {
			t.Errorf("ClaimByKey(%s) = %v, %v; want nil, nil", key, p, err)
		}
		if key != "missing" {
			if got := mustLoad(t, s, key); got.ViewCount != 0 || got.Expired {
				t.Errorf("%s touched: views %d expired %v", key, got.ViewCount, got.Expired)
			}
		}
	}
}

// What ClaimByKey returns of the row is the row as the claim left it,
// field for field in what a retrieval serves or acts on, on either engine
// (SQLite reads, then updates by id; PostgreSQL updates and returns),
// until the last view, which also expires it. The owner's fields (name,
// note, sealed token) are not read.
func TestClaimByKeyReturnsTheStoredRow(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	u := mustUser(t, s, "owner@example.com")
	yes := true
	createPush(t, s, "two", func(p *push.Push) {
		p.ExpireAfterViews, p.Kind, p.UserID, p.Receipts, p.Locale = 2, push.KindURL, u.ID, push.ReceiptView, "de"
		p.DeletableByViewer, p.RetrievalStep, p.ExpireAfter = &yes, true, 90*time.Minute
		p.Name, p.NoteSealed, p.TokenSealed = "owner's name", []byte("note"), []byte("token")
	})
	for i, at := range []time.Time{t0.Add(time.Minute), t0.Add(2 * time.Minute)} {
		p, err := s.ClaimByKey(t.Context(), "two", ev(push.EventView, at), nil)
		if err != nil || p == nil {
			t.Fatalf("claim %d: %v, %v", i+1, p, err)
		}
		got := mustLoad(t, s, "two")
		last := i == 1
		if p.ViewCount != i+1 || p.ViewCount != got.ViewCount || p.LogCount != got.LogCount ||
			p.Expired != last || got.Expired != last || !p.ExpiredOn.Equal(got.ExpiredOn) || !p.UpdatedAt.Equal(got.UpdatedAt) {
			t.Errorf("claim %d returned views %d log %d expired %v on %v updated %v; stored views %d log %d expired %v on %v updated %v",
				i+1, p.ViewCount, p.LogCount, p.Expired, p.ExpiredOn, p.UpdatedAt,
				got.ViewCount, got.LogCount, got.Expired, got.ExpiredOn, got.UpdatedAt)
		}
		if p.ID != got.ID || p.TokenKey != got.TokenKey || p.Kind != got.Kind || p.UserID != got.UserID ||
			p.ExpireAfterDays != got.ExpireAfterDays || p.ExpireAfterViews != got.ExpireAfterViews ||
			p.ExpireAfter != got.ExpireAfter || p.ExpireAfter != 90*time.Minute || !p.CreatedAt.Equal(got.CreatedAt) ||
			p.DeletableByViewer == nil || *p.DeletableByViewer != *got.DeletableByViewer || p.RetrievalStep != got.RetrievalStep ||
			p.Receipts != got.Receipts || p.Locale != got.Locale || p.Locale != "de" ||
			p.HasPassphrase || p.Deleted || p.FileCount != 0 {
			t.Errorf("claim %d returned %+v; stored %+v", i+1, p, got)
		}
		if !last && string(p.PayloadSealed) != string(got.PayloadSealed) {
			t.Errorf("claim %d returned payload %q, stored %q", i+1, p.PayloadSealed, got.PayloadSealed)
		}
		if p.Name != "" || p.NoteSealed != nil || p.TokenSealed != nil {
			t.Errorf("claim %d returned the owner's fields: name %q note %q token %q", i+1, p.Name, p.NoteSealed, p.TokenSealed)
		}
		if last && !p.ExpiredOn.Equal(at) {
			t.Errorf("last claim expired it on %v, want %v", p.ExpiredOn, at)
		}
	}
	if p, err := s.ClaimByKey(t.Context(), "two", ev(push.EventView, t0.Add(3*time.Minute)), nil); p != nil || err != nil {
		t.Errorf("a third claim of two views: %v, %v", p, err)
	}
}

// TestClaimByKeyRefused: a claim its accept refuses writes nothing, not
// even for the last view, whose claim wipes the payload: the count, the
// payload, the expiry and the audit log stay as they were, and the error
// comes back.
func TestClaimByKeyRefused(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	createPush(t, s, "one", func(p *push.Push) { p.ExpireAfterViews = 1 })
	before := mustLoad(t, s, "one")
	refuse := errors.New("cannot open it here")
	var asked *push.Push
	p, err := s.ClaimByKey(t.Context(), "one", ev(push.EventView, t0.Add(time.Minute)), func(p *push.Push) error {
		asked = p
		return refuse
	})
	if p != nil || !errors.Is(err, refuse) {
		t.Fatalf("refused claim: %v, %v; want nil and the refusal", p, err)
	}
	if asked == nil || string(asked.PayloadSealed) != string(before.PayloadSealed) {
		t.Errorf("accept was not shown the row with its payload: %+v", asked)
	}
	after := mustLoad(t, s, "one")
	if after.ViewCount != 0 || after.Expired || string(after.PayloadSealed) != string(before.PayloadSealed) || after.LogCount != before.LogCount {
		t.Errorf("a refused claim wrote: views %d expired %v log %d payload %q", after.ViewCount, after.Expired, after.LogCount, after.PayloadSealed)
	}
	if log, err := s.AuditLog(t.Context(), after.ID, 50, 0); err != nil || kinds(log) != "creation" {
		t.Errorf("a refused claim was audited: %s %v", kinds(log), err)
	}
	if p, err := s.ClaimByKey(t.Context(), "one", ev(push.EventView, t0.Add(2*time.Minute)), nil); p == nil || err != nil || !p.Expired {
		t.Errorf("the claim after the refusal: %v, %v", p, err)
	}
}

// TestLogUncountedView: the owner's own view is logged while the push is
// active; once it expired (deleted here), nothing is written and the
// caller is told, so that the owner is not served a deleted push.
func TestLogUncountedView(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newTestStore(t)
	p := createPush(t, s, "owned", nil)
	kinds := func() []push.EventKind {
		log, err := s.AuditLog(ctx, p.ID, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []push.EventKind
		for _, e := range log {
			out = append(out, e.Kind)
		}
		return out
	}
	if ok, err := s.LogUncountedView(ctx, p.ID, ev(push.EventOwnerView, t0)); !ok || err != nil {
		t.Fatalf("active push: %v %v", ok, err)
	}
	if _, err := s.ExpireByHand(ctx, p.ID, ev(push.EventExpire, t0)); err != nil {
		t.Fatal(err)
	}
	before := kinds()
	if ok, err := s.LogUncountedView(ctx, p.ID, ev(push.EventOwnerView, t0)); ok || err != nil {
		t.Fatalf("deleted push: %v %v, want false", ok, err)
	}
	if after := kinds(); len(after) != len(before) || after[len(after)-1] != push.EventExpire {
		t.Errorf("log after the owner's view of a deleted push: %v (before %v)", after, before)
	}
	if ok, err := s.LogUncountedView(ctx, p.ID+1000, ev(push.EventOwnerView, t0)); ok || err != nil {
		t.Errorf("a push that is not there: %v %v", ok, err)
	}
}
