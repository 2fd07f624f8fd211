package store

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"hush/internal/push"
)

type resealKey struct {
	token string
	field SealedField
}

// resealFixture creates n pushes: every third has a note, every tenth is
// expired (payload gone, so those without a note hold nothing to reseal), and
// it returns the sealed values Reseal must visit. n = 240 gives 224 pushes to
// visit, more than one batch of 200.
func resealFixture(t *testing.T, s *Store, n int) map[resealKey][]byte {
	t.Helper()
	want := map[resealKey][]byte{}
	for i := range n {
		token := tok(i)
		p := createPush(t, s, token, func(p *push.Push) {
			p.PayloadSealed = []byte{byte(i), byte(i >> 8), 0, 0xff, 'p'}
			if i%3 == 0 {
				p.NoteSealed = []byte{byte(i), byte(i >> 8), 0, 0xfe, 'n'}
			}
		})
		if i%10 == 0 {
			if ok, err := s.ExpireByHand(t.Context(), p.ID, ev(push.EventExpire, t0.Add(time.Hour))); err != nil || !ok {
				t.Fatalf("ExpireByHand = %v, %v", ok, err)
			}
		} else {
			want[resealKey{token, FieldPayload}] = p.PayloadSealed
		}
		if p.NoteSealed != nil {
			want[resealKey{token, FieldNote}] = p.NoteSealed
		}
	}
	return want
}

func TestResealVisitsEverySealedValue(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	want := resealFixture(t, s, 240)
	seen := map[resealKey][]byte{}
	calls := 0
	n, err := s.Reseal(t.Context(), func(token string, f SealedField, sealed []byte) ([]byte, bool, error) {
		calls++
		seen[resealKey{token, f}] = bytes.Clone(sealed)
		return nil, false, nil
	})
	if err != nil || n != 0 {
		t.Fatalf("Reseal = %d, %v; want 0, nil", n, err)
	}
	if calls != len(want) || len(seen) != len(want) {
		t.Fatalf("Reseal made %d calls over %d values, want %d", calls, len(seen), len(want))
	}
	for k, v := range want {
		if got, ok := seen[k]; !ok || !bytes.Equal(got, v) {
			t.Errorf("%v: callback saw %q (seen %v), want %q", k, got, ok, v)
		}
	}
	// Nothing changed when the callback declines.
	for k, v := range want {
		p := mustLoad(t, s, k.token)
		got := p.PayloadSealed
		if k.field == FieldNote {
			got = p.NoteSealed
		}
		if !bytes.Equal(got, v) {
			t.Errorf("%v changed to %q after a declined reseal", k, got)
		}
	}
}

func TestResealStoresChanges(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	want := resealFixture(t, s, 240)
	payloads := 0
	for k := range want {
		if k.field == FieldPayload {
			payloads++
		}
	}
	n, err := s.Reseal(t.Context(), func(token string, f SealedField, sealed []byte) ([]byte, bool, error) {
		if f == FieldPayload {
			return append([]byte("v2:"+token+":"), sealed...), true, nil
		}
		return []byte("ignored"), false, nil
	})
	if err != nil || n != payloads {
		t.Fatalf("Reseal = %d, %v; want %d, nil", n, err, payloads)
	}
	for k, v := range want {
		p := mustLoad(t, s, k.token)
		switch k.field {
		case FieldPayload:
			if exp := append([]byte("v2:"+k.token+":"), v...); !bytes.Equal(p.PayloadSealed, exp) {
				t.Errorf("%s payload = %q, want %q", k.token, p.PayloadSealed, exp)
			}
		case FieldNote:
			if !bytes.Equal(p.NoteSealed, v) {
				t.Errorf("%s note = %q, want unchanged %q", k.token, p.NoteSealed, v)
			}
		}
	}
	// Expired pushes stay without payload.
	if p := mustLoad(t, s, tok(0)); p.PayloadSealed != nil {
		t.Fatalf("expired push got a payload back: %q", p.PayloadSealed)
	}

	// Only the notes this time; the new payloads are what the callback sees.
	notes := 0
	n, err = s.Reseal(t.Context(), func(token string, f SealedField, sealed []byte) ([]byte, bool, error) {
		if f == FieldPayload {
			if !bytes.HasPrefix(sealed, []byte("v2:"+token+":")) {
				t.Errorf("%s: second pass saw payload %q", token, sealed)
			}
			return nil, false, nil
		}
		notes++
		return []byte("note2:" + token), true, nil
	})
	if err != nil || n != notes || notes == 0 {
		t.Fatalf("second Reseal = %d, %v; want %d, nil", n, err, notes)
	}
	for k := range want {
		if k.field == FieldNote {
			if p := mustLoad(t, s, k.token); string(p.NoteSealed) != "note2:"+k.token {
				t.Errorf("%s note = %q", k.token, p.NoteSealed)
			}
		}
	}
}

func TestResealErrorAborts(t *testing.T) {
	t.Parallel()
	s := newTestStore(t)
	for i := range 4 {
		createPush(t, s, tok(i), nil)
	}
	boom := errors.New("boom")
	calls := 0
	_, err := s.Reseal(t.Context(), func(token string, f SealedField, sealed []byte) ([]byte, bool, error) {
		calls++
		if calls == 3 {
			return nil, false, boom
		}
		return []byte("changed"), true, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Reseal err = %v, want one wrapping %v", err, boom)
	}
	if calls != 3 {
		t.Fatalf("callback ran %d times, want the run to stop at the error (3)", calls)
	}
	// The failing batch is one transaction: nothing of it is stored.
	for i := range 4 {
		if p := mustLoad(t, s, tok(i)); string(p.PayloadSealed) != "sealed:"+tok(i) {
			t.Errorf("%s payload = %q after an aborted reseal", tok(i), p.PayloadSealed)
		}
	}
}
