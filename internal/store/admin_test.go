package store

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hush/internal/push"
)

func newUser(t *testing.T, s *Store, email string) *push.User {
	t.Helper()
	u, err := s.CreateUser(t.Context(), email, "hash", t0)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func reload(t *testing.T, s *Store, id int64) *push.User {
	t.Helper()
	u, err := s.UserByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAdminActions: each action does what it says, and logs who, what,
// whom and when in the same transaction.
func TestAdminActions(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	admin, target := newUser(t, s, "admin@example.com"), newUser(t, s, "target@example.com")
	cli := push.AdminActor{Name: "command line"}
	if _, err := s.Administer(ctx, cli, push.AdminPromote, admin.ID, t0); err != nil {
		t.Fatal(err)
	}
	web := push.AdminActor{ID: admin.ID, Name: admin.Email, IP: "192.0.2.7"}
	if err := s.ReplaceToken(ctx, target.ID, "target-token", t0); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitSession(ctx, "target-session", target.ID, []byte("x"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	at := t0.Add(time.Minute)
	if res, err := s.Administer(ctx, web, push.AdminDisable, target.ID, at); err != nil || res.Target != target.Email || !res.Changed {
		t.Fatalf("disable: %+v, %v", res, err)
	}
	u := reload(t, s, target.ID)
	if !u.Disabled() || !u.DisabledAt.Equal(at) || u.AuthEpoch == target.AuthEpoch {
		t.Errorf("after disable: %+v", u)
	}
	if _, found, _ := s.FindSession(ctx, "target-session", t0); found {
		t.Error("a disabled account's session is still there")
	}
	if _, err := s.UserByTokenDigest(ctx, "target-token"); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("a disabled account's token names someone: %v", err)
	}
	if _, err := s.Administer(ctx, web, push.AdminEnable, target.ID, at); err != nil {
		t.Fatal(err)
	}
	if u := reload(t, s, target.ID); u.Disabled() {
		t.Error("still disabled after enable")
	}
	if _, err := s.UserByTokenDigest(ctx, "target-token"); err != nil {
		t.Errorf("the token after enable: %v", err)
	}
	if _, err := s.Administer(ctx, web, push.AdminRevokeToken, target.ID, at); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.HasToken(ctx, target.ID); ok {
		t.Error("token left after revoke_token")
	}
	epoch := reload(t, s, target.ID).AuthEpoch
	if _, err := s.Administer(ctx, web, push.AdminRevokeSessions, target.ID, at); err != nil {
		t.Fatal(err)
	}
	if reload(t, s, target.ID).AuthEpoch == epoch {
		t.Error("revoke_sessions kept the auth epoch")
	}
	if _, err := s.Administer(ctx, web, push.AdminPromote, target.ID, at); err != nil || !reload(t, s, target.ID).Admin {
		t.Fatalf("promote: %v", err)
	}
	if _, err := s.Administer(ctx, web, push.AdminDemote, target.ID, at); err != nil || reload(t, s, target.ID).Admin {
		t.Fatalf("demote: %v", err)
	}
	if _, err := s.Administer(ctx, web, push.AdminDelete, target.ID, at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UserByID(ctx, target.ID); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("deleted user: %v", err)
	}
	if _, err := s.Administer(ctx, web, push.AdminEnable, target.ID, at); push.ErrorCode(err) != push.CodeNotFound {
		t.Fatalf("action on a deleted user: %v", err)
	}

	log, total, err := s.AdminLog(ctx, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, fmt.Sprintf("%d %s %s %d %s %s", e.ActorID, e.Actor, e.Action, e.TargetID, e.Target, e.IP))
	}
	w := fmt.Sprintf("%d admin@example.com %%s %d target@example.com 192.0.2.7", admin.ID, target.ID)
	want := []string{fmt.Sprintf(w, "delete"), fmt.Sprintf(w, "demote"), fmt.Sprintf(w, "promote"), fmt.Sprintf(w, "revoke_sessions"),
		fmt.Sprintf(w, "revoke_token"), fmt.Sprintf(w, "enable"), fmt.Sprintf(w, "disable"),
		fmt.Sprintf("0 command line promote %d admin@example.com ", admin.ID)}
	if total != len(want) || !slices.Equal(got, want) {
		t.Fatalf("admin log (%d):\n%s\nwant:\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !log[0].At.Equal(at) || !log[len(log)-1].At.Equal(t0) {
		t.Errorf("times: %v … %v", log[0].At, log[len(log)-1].At)
	}
}

// TestAdminActorMustStillBeAdmin: the store checks the acting admin inside
// the action's transaction, so a demoted or disabled admin acts no more,
// and a non-admin never did.
func TestAdminActorMustStillBeAdmin(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	a, b, c := newUser(t, s, "a@example.com"), newUser(t, s, "b@example.com"), newUser(t, s, "c@example.com")
	cli := push.AdminActor{Name: "command line"}
	actA := push.AdminActor{ID: a.ID, Name: a.Email}
	if _, err := s.Administer(ctx, actA, push.AdminDisable, c.ID, t0); push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("a non-admin acts: %v", err)
	}
	for _, id := range []int64{a.ID, b.ID} {
		if _, err := s.Administer(ctx, cli, push.AdminPromote, id, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Administer(ctx, push.AdminActor{ID: b.ID, Name: b.Email}, push.AdminDemote, a.ID, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Administer(ctx, actA, push.AdminDisable, c.ID, t0); push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("a demoted admin acts: %v", err)
	}
	if _, err := s.Administer(ctx, cli, push.AdminPromote, a.ID, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Administer(ctx, cli, push.AdminDisable, a.ID, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Administer(ctx, actA, push.AdminDisable, c.ID, t0); push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("a disabled admin acts: %v", err)
	}
	if reload(t, s, c.ID).Disabled() {
		t.Fatal("a refused action happened")
	}
	if _, total, _ := s.AdminLog(ctx, 0, 50); total != 5 {
		t.Errorf("%d log entries, want the 5 actions that happened", total)
	}
}

// promotedPair makes two accounts of the round and promotes both from the
// command line.
func promotedPair(t *testing.T, s *Store, round int) [2]*push.User {
	t.Helper()
	pair := [2]*push.User{newUser(t, s, fmt.Sprintf("a%d@example.com", round)), newUser(t, s, fmt.Sprintf("b%d@example.com", round))}
	for _, u := range pair {
		if _, err := s.Administer(t.Context(), push.AdminActor{Name: "command line"}, push.AdminPromote, u.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	return pair
}

// TestAdminsDisablingEachOther: two admins, each disabling the other at the
// same moment, over and over, on two handles of one database: exactly one
// of each pair wins, so the instance always keeps an enabled admin.
func TestAdminsDisablingEachOther(t *testing.T) {
	t.Parallel()
	stores := twoHandles(t)
	ctx := t.Context()
	s := stores[0]
	for round := range 10 {
		pair := promotedPair(t, s, round)
		a, b := pair[0], pair[1]
		var wg sync.WaitGroup
		errs := make([]error, 2)
		pairs := [][2]*push.User{{a, b}, {b, a}}
		for i, p := range pairs {
			wg.Go(func() {
				_, errs[i] = stores[i].Administer(ctx, push.AdminActor{ID: p[0].ID, Name: p[0].Email}, push.AdminDisable, p[1].ID, t0)
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case push.ErrorCode(err) != push.CodeForbidden:
				t.Fatal(err)
			}
		}
		if won != 1 || reload(t, s, a.ID).Disabled() == reload(t, s, b.ID).Disabled() {
			t.Fatalf("round %d: %d of 2 mutual disables succeeded (%v)", round, won, errs)
		}
	}
}

func TestTwoFactorStore(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	u := newUser(t, s, "tf@example.com")
	if err := s.CommitSession(ctx, "other", u.ID, []byte("x"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// An enrolment under another epoch, or confirmed with another pending
	// secret, does not hold.
	if err := s.BeginTwoFactor(ctx, u.ID, "not the epoch", []byte("sealed"), t0); push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("begin under a stale epoch: %v", err)
	}
	if err := s.BeginTwoFactor(ctx, u.ID, u.AuthEpoch, []byte("sealed-1"), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnableTwoFactor(ctx, u.ID, u.AuthEpoch, []byte("sealed-0"), 5, nil, t0); push.ErrorCode(err) != push.CodeConflict {
		t.Fatalf("enable with another pending secret: %v", err)
	}
	tf, err := s.TwoFactor(ctx, u.ID)
	if err != nil || string(tf.Pending) != "sealed-1" || tf.PendingEpoch != u.AuthEpoch || tf.Secret != nil {
		t.Fatalf("pending: %+v, %v", tf, err)
	}
	epoch, err := s.EnableTwoFactor(ctx, u.ID, u.AuthEpoch, []byte("sealed-1"), 100, []string{"d1", "d2"}, t0)
	if err != nil || epoch == u.AuthEpoch {
		t.Fatalf("enable: %q, %v", epoch, err)
	}
	if _, found, _ := s.FindSession(ctx, "other", t0); found {
		t.Error("a session survived turning the second factor on")
	}
	if got := reload(t, s, u.ID); !got.HasTwoFactor() || got.AuthEpoch != epoch {
		t.Fatalf("after enable: %+v", got)
	}
	if tf, _ = s.TwoFactor(ctx, u.ID); string(tf.Secret) != "sealed-1" || tf.Pending != nil || tf.LastStep != 100 || tf.RecoveryLeft != 2 {
		t.Fatalf("after enable: %+v", tf)
	}
	// A step is good once, and never an earlier one.
	for step, want := range map[int64]bool{100: false, 99: false} {
		if ok, err := s.UseTOTPStep(ctx, u.ID, step); err != nil || ok != want {
			t.Errorf("UseTOTPStep(%d) = %v, %v", step, ok, err)
		}
	}
	if ok, _ := s.UseTOTPStep(ctx, u.ID, 101); !ok {
		t.Error("a later step was refused")
	}
	// Of many concurrent uses of one step or one recovery code, one wins.
	var wins, recov sync.WaitGroup
	var mu sync.Mutex
	won := map[string]int{}
	for range 20 {
		wins.Go(func() {
			ok, err := s.UseTOTPStep(ctx, u.ID, 102)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				won["step"]++
				mu.Unlock()
			}
		})
		recov.Go(func() {
			ok, err := s.UseRecoveryCode(ctx, u.ID, "d1")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				won["code"]++
				mu.Unlock()
			}
		})
	}
	wins.Wait()
	recov.Wait()
	if won["step"] != 1 || won["code"] != 1 {
		t.Fatalf("concurrent uses won: %v, want one each", won)
	}
	if ok, _ := s.UseRecoveryCode(ctx, u.ID, "no such code"); ok {
		t.Error("an unknown recovery code was taken")
	}
	if err := s.DisableTwoFactor(ctx, u.ID, t0); err != nil {
		t.Fatal(err)
	}
	if tf, _ = s.TwoFactor(ctx, u.ID); tf.Secret != nil || tf.RecoveryLeft != 0 || reload(t, s, u.ID).HasTwoFactor() {
		t.Fatalf("after disable: %+v", tf)
	}
	if ok, _ := s.UseRecoveryCode(ctx, u.ID, "d2"); ok {
		t.Error("a recovery code works with the second factor off")
	}
}

// TestListUsersAndStats: search matches parts of emails, taking % and _ as
// themselves; the overview counts what is there.
func TestListUsersAndStats(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	for _, e := range []string{"alice@example.com", "bob@example.org", "a_b@example.com", "axb@example.com", "100%@example.net"} {
		newUser(t, s, e)
	}
	for q, want := range map[string][]string{
		"":            {"alice@example.com", "bob@example.org", "a_b@example.com", "axb@example.com", "100%@example.net"},
		"EXAMPLE.COM": {"alice@example.com", "a_b@example.com", "axb@example.com"},
		"a_b":         {"a_b@example.com"},
		"%":           {"100%@example.net"},
		"zzz":         nil,
	} {
		users, total, err := s.ListUsers(ctx, q, 0, 50)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range users {
			got = append(got, u.Email)
		}
		if !slices.Equal(got, want) || total != len(want) {
			t.Errorf("ListUsers(%q) = %v (%d), want %v", q, got, total, want)
		}
	}
	if page, total, _ := s.ListUsers(ctx, "", 2, 2); len(page) != 2 || total != 5 || page[0].Email != "a_b@example.com" {
		t.Errorf("second page: %v of %d", page, total)
	}
	users, _, _ := s.ListUsers(ctx, "alice", 0, 1)
	alice := users[0]
	if alice.PasswordHash != "" || alice.AuthEpoch != "" {
		t.Error("the list carries password hashes or epochs")
	}
	p := testPush("tok-1")
	p.UserID = alice.ID
	if err := s.CreatePush(ctx, p, ev(push.EventCreation, t0)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreatePush(ctx, testPush("tok-2"), ev(push.EventCreation, t0)); err != nil {
		t.Fatal(err)
	}
	if users, _, _ = s.ListUsers(ctx, "alice", 0, 1); users[0].ActivePushes != 1 || users[0].HasToken {
		t.Errorf("alice: %+v", users[0])
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Users != 5 || st.Admins != 0 || len(st.Pushes) != 1 || st.Pushes[0] != (PushCount{Kind: push.KindText, Active: 2}) || st.DatabaseBytes <= 0 {
		t.Errorf("stats: %+v", st)
	}
}

// TestCopyCoversEverything: migrate-data copies every column of every table
// but the rate counters and the migrations' own, whatever later migrations
// add (a column left out of copyTables would be lost in a move).
func TestCopyCoversEverything(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	q := `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'`
	if s.Engine() == "postgres" {
		q = `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`
	}
	rows, err := s.r.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	copied := map[string]bool{}
	for _, tb := range copyTables {
		for _, c := range tb.columns {
			copied[tb.name+"."+c] = true
		}
	}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(notCopied, table) && !copied[table+"."+column] {
			t.Errorf("%s.%s is not copied by migrate-data", table, column)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestDeleteOwnAccountKeepsAnAdmin: an account deletes itself (the account
// page), but the last enabled admin is refused and keeps everything; an
// admin's own deletion is in the admin log, another account's is not.
func TestDeleteOwnAccountKeepsAnAdmin(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	cli := push.AdminActor{Name: "command line"}
	a, b, c := newUser(t, s, "a@example.com"), newUser(t, s, "b@example.com"), newUser(t, s, "c@example.com")
	for _, id := range []int64{a.ID, b.ID} {
		if _, err := s.Administer(ctx, cli, push.AdminPromote, id, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteOwnAccount(ctx, c.ID, "192.0.2.3", t0); err != nil {
		t.Fatalf("a non-admin deletes their account: %v", err)
	}
	if _, err := s.DeleteOwnAccount(ctx, a.ID, "192.0.2.1", t0); err != nil {
		t.Fatalf("an admin deletes their account while another is left: %v", err)
	}
	_, err := s.DeleteOwnAccount(ctx, b.ID, "192.0.2.2", t0)
	if push.ErrorCode(err) != push.CodeForbidden || !strings.Contains(err.Error(), MsgLastAdmin) {
		t.Fatalf("the last enabled admin deletes their account: %v", err)
	}
	if got := reload(t, s, b.ID); !got.Admin || got.Disabled() {
		t.Fatalf("the last admin after the refusal: %+v", got)
	}
	for _, id := range []int64{a.ID, c.ID} {
		if _, err := s.UserByID(ctx, id); push.ErrorCode(err) != push.CodeNotFound {
			t.Errorf("account %d after deleting itself: %v", id, err)
		}
	}
	log, total, err := s.AdminLog(ctx, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || log[0].Action != push.AdminDelete || log[0].ActorID != a.ID || log[0].TargetID != a.ID ||
		log[0].Target != a.Email || log[0].IP != "192.0.2.1" {
		t.Fatalf("admin log: %d entries, newest %+v; want the two promotions and a's deletion", total, log[0])
	}

	// A disabled admin is no admin the instance can count on: deleting
	// the last enabled one stays refused with it there, and it may go.
	d := newUser(t, s, "d@example.com")
	for _, act := range []push.AdminAction{push.AdminPromote, push.AdminDisable} {
		if _, err := s.Administer(ctx, cli, act, d.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteOwnAccount(ctx, b.ID, "192.0.2.2", t0); push.ErrorCode(err) != push.CodeForbidden {
		t.Fatalf("the last enabled admin, with a disabled one left: %v", err)
	}
	if _, err := s.DeleteOwnAccount(ctx, d.ID, "", t0); err != nil {
		t.Fatalf("a disabled admin's account: %v", err)
	}
}

// TestAdminsDeletingThemselves: the only two enabled admins delete their
// own accounts at the same moment, over and over, on two handles of one
// database: exactly one of each pair is deleted, so the instance always
// keeps an enabled admin.
func TestAdminsDeletingThemselves(t *testing.T) {
	t.Parallel()
	stores := twoHandles(t)
	ctx := t.Context()
	s := stores[0]
	cli := push.AdminActor{Name: "command line"}
	for round := range 10 {
		pair := promotedPair(t, s, round)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, u := range pair {
			wg.Go(func() { _, errs[i] = stores[i].DeleteOwnAccount(ctx, u.ID, "192.0.2.1", t0) })
		}
		wg.Wait()
		var survivor *push.User
		for i, err := range errs {
			switch {
			case err == nil:
			case push.ErrorCode(err) == push.CodeForbidden:
				survivor = pair[i]
			default:
				t.Fatal(err)
			}
		}
		if survivor == nil || errs[0] == nil == (errs[1] == nil) {
			t.Fatalf("round %d: both admins deleted or refused (%v)", round, errs)
		}
		if got := reload(t, s, survivor.ID); !got.Admin || got.Disabled() {
			t.Fatalf("round %d: the refused admin is %+v", round, got)
		}
		// The command line may delete the last admin; the next round
		// starts without one.
		if _, err := s.Administer(ctx, cli, push.AdminDelete, survivor.ID, t0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAdminCommandLineActions: creating an account, setting its password
// and issuing its API token as admin actions change the account and write
// their admin log lines in the same transaction; a refused one writes
// none.
func TestAdminCommandLineActions(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	cli := push.AdminActor{Name: "command line"}
	u, err := s.AdminCreateUser(ctx, cli, " New@Example.com", "hash-1", true, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := reload(t, s, u.ID); got.Email != "new@example.com" || !got.Admin || got.PasswordHash != "hash-1" || !u.Admin {
		t.Fatalf("created: %+v", got)
	}
	if _, err := s.AdminCreateUser(ctx, cli, "new@example.com", "hash-2", false, t0); push.ErrorCode(err) != push.CodeConflict {
		t.Errorf("a taken email: %v", err)
	}
	if err := s.CommitSession(ctx, "new-session", u.ID, []byte("x"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(time.Minute)
	epoch, err := s.AdminSetPassword(ctx, cli, u.ID, "hash-3", at)
	if err != nil {
		t.Fatal(err)
	}
	if got := reload(t, s, u.ID); got.PasswordHash != "hash-3" || got.AuthEpoch != epoch || epoch == u.AuthEpoch {
		t.Errorf("after set_password: %+v", got)
	}
	if _, found, _ := s.FindSession(ctx, "new-session", t0); found {
		t.Error("a session survived set_password")
	}
	if err := s.AdminReplaceToken(ctx, cli, u.ID, "digest-1", at); err != nil {
		t.Fatal(err)
	}
	if got, err := s.UserByTokenDigest(ctx, "digest-1"); err != nil || got.ID != u.ID {
		t.Errorf("the new token: %v", err)
	}
	other := newUser(t, s, "other@example.com")
	notAdmin := push.AdminActor{ID: other.ID, Name: other.Email}
	if _, err := s.AdminSetPassword(ctx, notAdmin, u.ID, "hash-4", at); push.ErrorCode(err) != push.CodeForbidden {
		t.Errorf("set_password by a non-admin: %v", err)
	}
	if err := s.AdminReplaceToken(ctx, cli, other.ID+100, "digest-2", at); push.ErrorCode(err) != push.CodeNotFound {
		t.Errorf("new_token for nobody: %v", err)
	}

	log, total, err := s.AdminLog(ctx, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range log {
		got = append(got, fmt.Sprintf("%s %s %d %s", e.Actor, e.Action, e.TargetID, e.Target))
	}
	w := fmt.Sprintf("command line %%s %d new@example.com", u.ID)
	want := []string{fmt.Sprintf(w, "new_token"), fmt.Sprintf(w, "set_password"), fmt.Sprintf(w, "promote"), fmt.Sprintf(w, "create")}
	if total != len(want) || !slices.Equal(got, want) {
		t.Fatalf("admin log (%d):\n%s\nwant:\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAdminNoChange: an action that finds the account as it would leave
// it says it changed nothing and writes no line of the admin log; the
// same action on an account it changes does both.
func TestAdminNoChange(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	ctx := t.Context()
	cli := push.AdminActor{Name: "command line"}
	u := newUser(t, s, "u@example.com")
	for _, c := range []struct {
		action  push.AdminAction
		changed bool
	}{
		{push.AdminEnable, false}, {push.AdminDemote, false}, {push.AdminRevokeToken, false}, {push.AdminResetTwoFactor, false},
		{push.AdminDisable, true}, {push.AdminDisable, false}, {push.AdminEnable, true},
		{push.AdminPromote, true}, {push.AdminPromote, false}, {push.AdminDemote, true},
		{push.AdminRevokeSessions, true},
	} {
		_, total, _ := s.AdminLog(ctx, 0, 1)
		res, err := s.Administer(ctx, cli, c.action, u.ID, t0)
		if err != nil || res.Changed != c.changed || res.Target != u.Email {
			t.Errorf("%s: %+v, %v; want changed %v", c.action, res, err, c.changed)
		}
		if _, after, _ := s.AdminLog(ctx, 0, 1); (after > total) != c.changed {
			t.Errorf("%s: the admin log went from %d to %d lines", c.action, total, after)
		}
	}
	if err := s.ReplaceToken(ctx, u.ID, "digest", t0); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Administer(ctx, cli, push.AdminRevokeToken, u.ID, t0); err != nil || !res.Changed {
		t.Errorf("revoke_token of a token: %+v, %v", res, err)
	}
	if err := s.BeginTwoFactor(ctx, u.ID, reload(t, s, u.ID).AuthEpoch, []byte("sealed"), t0); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Administer(ctx, cli, push.AdminResetTwoFactor, u.ID, t0); err != nil || !res.Changed {
		t.Errorf("reset_two_factor of an enrolment: %+v, %v", res, err)
	}
}
