package service

import (
	"context"
	"testing"

	"hush/internal/push"
	"hush/internal/testclock"
)

// TestDisabledAccount: a disabled account signs in nowhere — its password
// is refused with a message only whoever knows it sees, its sessions and
// its token name nobody — until it is enabled again.
func TestDisabledAccount(t *testing.T) {
	t.Parallel()
	s := newTestService(t, testclock.New(t0))
	ctx := context.Background()
	admin, err := s.SignUp(ctx, "admin@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.SignUp(ctx, "user@example.com", "password one", "password one", meta)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := s.ReplaceToken(ctx, u)
	cli := push.AdminActor{Name: "command line"}
	if _, err := s.Administer(ctx, cli, push.AdminPromote, admin.ID); err != nil {
		t.Fatal(err)
	}
	actor := push.AdminActor{ID: admin.ID, Name: admin.Email, IP: meta.IP}
	for _, a := range push.AdminActions {
		if _, err := s.Administer(ctx, actor, a, admin.ID); push.ErrorCode(err) != push.CodeForbidden {
			t.Errorf("an admin's %s of their own account: %v", a, err)
		}
	}
	if _, err := s.Administer(ctx, actor, "explode", u.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("an unknown action: %v", err)
	}
	if _, err := s.Administer(ctx, actor, push.AdminDisable, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, u.Email, "password one", meta); push.ErrorCode(err) != push.CodeForbidden || !isMsg(err, MsgDisabled) {
		t.Errorf("a disabled account's right password: %v", err)
	}
	if _, err := s.SignIn(ctx, u.Email, "wrong password", meta); !isMsg(err, MsgBadCredentials) {
		t.Errorf("a disabled account's wrong password: %v", err)
	}
	if got, _ := s.SessionUser(ctx, u.ID, u.AuthEpoch); got != nil {
		t.Error("a disabled account's session is honoured")
	}
	if _, err := s.UserByToken(ctx, tok); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("a disabled account's token: %v", err)
	}
	if _, err := s.Administer(ctx, cli, push.AdminEnable, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, u.Email, "password one", meta); err != nil {
		t.Errorf("sign-in after enable: %v", err)
	}
	if got, err := s.UserByToken(ctx, tok); err != nil || got.ID != u.ID {
		t.Errorf("the token after enable: %v", err)
	}
	if got, _ := s.SessionUser(ctx, u.ID, u.AuthEpoch); got != nil {
		t.Error("a session from before the disable came back with enable")
	}
	log, n, err := s.AdminLog(ctx, 1)
	if err != nil || n != 3 || log[0].Action != push.AdminEnable || log[0].ActorID != 0 || log[1].ActorID != admin.ID {
		t.Fatalf("admin log: %+v (%d), %v", log, n, err)
	}
}
