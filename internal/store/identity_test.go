package store

import (
	"context"
	"testing"

	"hush/internal/push"
)

// TestLinkIdentityEndsCredentials: a link made with endCredentials ends,
// in its transaction, what the account had signed in with before: the
// auth epoch changes (every session of it ends), the API token is revoked
// and the webhook endpoints are turned off with push.HookOffLinked. A link
// without it keeps all of them.
func TestLinkIdentityEndsCredentials(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newTestStore(t)
	for i, end := range []bool{false, true} {
		email := []string{"kept@example.com", "ended@example.com"}[i]
		u, err := s.CreateUser(ctx, email, "hash", t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ReplaceToken(ctx, u.ID, "digest-"+email, t0); err != nil {
			t.Fatal(err)
		}
		hook := &push.Webhook{UserID: u.ID, URL: "https://hooks.example.com/" + email, Events: push.HookEvents(1), Enabled: true, CreatedAt: t0}
		if err := s.CreateWebhook(ctx, hook, []byte("sealed"), "ref-"+email); err != nil {
			t.Fatal(err)
		}
		id := Identity{Issuer: "https://op.example", Subject: "sub-" + email, Email: email}
		if err := s.LinkIdentity(ctx, u.ID, id, t0, end); err != nil {
			t.Fatal(err)
		}
		after, err := s.UserByID(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, tokenErr := s.UserByTokenDigest(ctx, "digest-"+email)
		w, err := s.Webhook(ctx, hook.ID)
		if err != nil {
			t.Fatal(err)
		}
		ended := after.AuthEpoch != u.AuthEpoch
		if ended != end || (tokenErr != nil) != end || w.Enabled == end {
			t.Errorf("endCredentials %v: epoch changed %v, token refused %v (%v), endpoint on %v", end, ended, tokenErr != nil, tokenErr, w.Enabled)
		}
		if end && w.DisabledReason != push.HookOffLinked {
			t.Errorf("endpoint turned off with reason %q", w.DisabledReason)
		}
		if ids, _ := s.Identities(ctx, u.ID); len(ids) != 1 || ids[0].Subject != id.Subject {
			t.Errorf("endCredentials %v: identities %+v", end, ids)
		}
	}
}
