package service

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hush/internal/mail"
	"hush/internal/store"
)

// The outbox worker delivers the messages of the outbox (store/outbox.go):
// it claims the messages that are due for a lease, hands each to the sender
// its kind names, and deletes it once sent. A failure that trying again may
// cure is tried again later, each time waiting twice as long (30 s up to an
// hour), up to outboxAttempts times; a permanent one (the server refused
// the recipient for good) is not. Either way the message keeps no payload
// once it has failed for good, and the failure is logged and counted. A
// request never waits for a delivery: it only queues.
const (
	// A claim holds its batch for outboxLease. The worker starts no
	// delivery once half of it has passed (the rest of the batch goes
	// back), and each delivery is cut after outboxSendLimit, so none
	// outlives the lease and another instance never sends the same
	// message while this one still may.
	outboxLease     = 5 * time.Minute
	outboxSendLimit = 2 * time.Minute
	outboxBatch     = 20
	outboxAttempts  = 12 // about 6 hours of trying
	outboxFirstTry  = 30 * time.Second
	outboxMaxWait   = time.Hour
	// OutboxKeepFailed is how long a message that failed for good is
	// kept (without its payload), for the operator.
	OutboxKeepFailed = 7 * 24 * time.Hour
)

// Delivery results, as Deps.Deliveries is told them.
const (
	DeliverySent    = "sent"    // the server took the message
	DeliveryRetry   = "retry"   // it failed; it is tried again later
	DeliveryFailed  = "failed"  // it failed for good
	DeliveryDropped = "dropped" // nothing was left to send (the push or the account is gone)
)

// errNothingToSend ends a message that has nothing left to send: its push
// or its account is gone, or no longer wants it.
var errNothingToSend = errors.New("nothing to send")

// outboxWait is how long a message waits after its attempt-th failure.
func outboxWait(attempt int) time.Duration {
	d := outboxFirstTry
	for i := 1; i < attempt && d < outboxMaxWait; i++ {
		d *= 2
	}
	return min(d, outboxMaxWait)
}

// RunOutbox delivers the outbox until ctx ends: at once when this instance
// queued a message, else every poll (the messages of other instances, and
// those waiting to be tried again). Without a Mailer or a WebhookPoster it
// returns at once.
func (s *Service) RunOutbox(ctx context.Context, poll time.Duration) {
	if s.mail == nil && s.hooks == nil {
		return
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := s.DeliverOutbox(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("outbox: delivery round failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
	}
}

// DeliverOutbox delivers every message due now, batch after batch, until
// none is left or ctx ends. It returns an error only when the outbox
// itself could not be read or changed.
func (s *Service) DeliverOutbox(ctx context.Context) error {
	for ctx.Err() == nil {
		now := s.Now()
		due, err := s.store.OutboxDue(ctx, now)
		if err != nil || !due {
			return err
		}
		batch, err := s.store.ClaimOutbox(ctx, now, outboxLease, outboxBatch)
		if err != nil || len(batch) == 0 {
			return err
		}
		if err := s.deliverBatch(ctx, batch, now); err != nil {
			return err
		}
	}
	return nil
}

// deliverBatch delivers the messages of a batch claimed at claimed, one by
// one, while the claim's lease leaves room for a whole delivery; what is
// left then goes back, to be claimed afresh.
func (s *Service) deliverBatch(ctx context.Context, batch []store.OutboxMessage, claimed time.Time) error {
	for i, m := range batch {
		if ctx.Err() != nil || s.Now().Sub(claimed) > outboxLease/2 {
			// Stopping, or late: what was claimed and not tried goes back.
			s.releaseAll(context.WithoutCancel(ctx), batch[i:])
			return nil
		}
		if err := s.deliver(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// releaseAll gives claimed messages back unsent.
func (s *Service) releaseAll(ctx context.Context, msgs []store.OutboxMessage) {
	for _, m := range msgs {
		if err := s.store.OutboxRelease(ctx, m); err != nil {
			s.log.Warn("outbox: could not give a message back; it is taken up again after its lease", "id", m.ID, "err", err)
		}
	}
}

// deliver sends one claimed message and records the outcome. Only a
// failure to record it is returned.
func (s *Service) deliver(ctx context.Context, m store.OutboxMessage) error {
	sendCtx, cancel := context.WithTimeout(ctx, outboxSendLimit)
	err := s.send(sendCtx, m)
	cancel()
	bg := context.WithoutCancel(ctx)
	switch {
	case err == nil || errors.Is(err, errNothingToSend):
		result := DeliverySent
		if err != nil {
			result = DeliveryDropped
		}
		err := s.settle(s.store.OutboxDelivered(bg, m))
		s.delivered(m, result)
		return err
	case ctx.Err() != nil:
		// Stopping mid-delivery: whether the server took it is unknown; it
		// goes back, so it is sent at least once.
		s.releaseAll(bg, []store.OutboxMessage{m})
		return nil
	case errors.Is(err, mail.ErrPermanent) || errors.Is(err, errHookGiveUp) || (m.Kind != kindWebhook && m.Attempts >= outboxAttempts):
		s.log.Error("outbox: a message could not be delivered and is given up", "kind", m.Kind, "id", m.ID,
			"attempts", m.Attempts, "err", err)
		err = s.settle(s.store.OutboxFailed(bg, m, err.Error()))
		s.delivered(m, DeliveryFailed)
		return err
	default:
		wait := outboxWait(m.Attempts)
		if m.Kind == kindWebhook {
			wait = hookNextTry(s.Now(), m.CreatedAt, m.Attempts).Sub(s.Now())
		}
		s.log.Warn("outbox: a message could not be delivered; it is tried again", "kind", m.Kind, "id", m.ID,
			"attempts", m.Attempts, "retry_in", wait.String(), "err", err)
		err = s.settle(s.store.OutboxRetry(bg, m, s.Now().Add(wait), err.Error()))
		s.delivered(m, DeliveryRetry)
		return err
	}
}

// settle accepts a lost lease: another worker took the message over after
// this one's lease ran out, and it decides.
func (s *Service) settle(err error) error {
	if store.IsLeaseLost(err) {
		return nil
	}
	return err
}

// delivered reports an attempt's result.
func (s *Service) delivered(m store.OutboxMessage, result string) {
	if s.deliveries != nil {
		s.deliveries(m.Kind, result)
	}
}

// send hands m to the sender of its kind.
func (s *Service) send(ctx context.Context, m store.OutboxMessage) error {
	if m.Kind == kindWebhook {
		return s.sendHook(ctx, m)
	}
	if s.mail == nil {
		return fmt.Errorf("%w: email is off on this instance", mail.ErrPermanent)
	}
	switch m.Kind {
	case kindEmail:
		var job emailJob
		if err := s.openQueued(m, &job); err != nil {
			return fmt.Errorf("%w: %v", mail.ErrPermanent, err)
		}
		return s.mail.Send(ctx, job.Message)
	case kindReset:
		return s.sendReset(ctx, m)
	case kindConfirm:
		return s.sendConfirm(ctx, m)
	case kindTaken:
		return s.sendTaken(ctx, m)
	case kindReceipt:
		return s.sendReceipt(ctx, m)
	}
	return fmt.Errorf("%w: no sender for messages of kind %q", mail.ErrPermanent, m.Kind)
}
