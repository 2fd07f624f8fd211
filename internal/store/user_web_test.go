package store

import (
	"testing"
	"time"

	"hush/internal/push"
)

func TestSessions(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	if _, found, err := s.FindSession(ctx, "d1", t0); err != nil || found {
		t.Fatalf("missing session: found %v, err %v", found, err)
	}
	if err := s.CommitSession(ctx, "d1", 0, []byte("one"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitSession(ctx, "d1", 0, []byte("two"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitSession(ctx, "d2", 0, []byte("old"), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if b, found, err := s.FindSession(ctx, "d1", t0); err != nil || !found || string(b) != "two" {
		t.Fatalf("FindSession = %q, %v, %v", b, found, err)
	}
	if _, found, _ := s.FindSession(ctx, "d2", t0.Add(2*time.Minute)); found {
		t.Error("an expired session is found")
	}
	if n, err := s.DeleteExpiredSessions(ctx, t0.Add(2*time.Minute)); err != nil || n != 1 {
		t.Errorf("DeleteExpiredSessions = %d, %v", n, err)
	}
	if err := s.DeleteSession(ctx, "d1"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.FindSession(ctx, "d1", t0); found {
		t.Error("a deleted session is found")
	}
}

func TestDeleteUserDeletesPushes(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	u, err := s.CreateUser(ctx, "a@example.com", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceToken(ctx, u.ID, "digest", t0); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.HasToken(ctx, u.ID); err != nil || !ok {
		t.Fatalf("HasToken = %v, %v", ok, err)
	}
	yes := true
	p := &push.Push{TokenKey: "tok1", Kind: push.KindText, UserID: u.ID, PayloadSealed: []byte("x"),
		ExpireAfterDays: 1, ExpireAfterViews: 1, DeletableByViewer: &yes, CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreatePush(ctx, p, ev(push.EventCreation, t0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetPassword(ctx, u.ID, "h2", t0); err != nil {
		t.Fatal(err)
	}
	if got, err := s.UserByID(ctx, u.ID); err != nil || got.PasswordHash != "h2" {
		t.Fatalf("UserByID = %+v, %v", got, err)
	}
	if _, err := s.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PushByKey(ctx, "tok1"); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("push of a deleted user: %v", err)
	}
	var n int
	if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_logs`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d audit rows left, %v", n, err)
	}
	if ok, _ := s.HasToken(ctx, u.ID); ok {
		t.Error("token of a deleted user remains")
	}
	if _, err := s.UserByID(ctx, u.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("UserByID after delete: %v", err)
	}
	if _, err := s.DeleteUser(ctx, u.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("second DeleteUser: %v", err)
	}
}
