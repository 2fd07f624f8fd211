package service

// Push life events reported to Service.Observe (for metrics).
const (
	EventCreated = "created" // a push was stored
	EventViewed  = "viewed"  // a view was claimed (the owner's own views excluded)
	EventExpired = "expired" // the owner or a viewer expired a push
)

// observe reports a push life event to s.Observe, if set.
func (s *Service) observe(event string) {
	if s.Observe != nil {
		s.Observe(event)
	}
}
