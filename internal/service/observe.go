package service

// Push life events reported to Deps.Observe (for metrics).
const (
	EventCreated = "created" // a push was stored
	EventViewed  = "viewed"  // a view was claimed (the owner's own views excluded)
	EventExpired = "expired" // the owner or a viewer expired a push
)

// observe reports a push life event to the observer, if there is one.
func (s *Service) observe(event string) {
	if s.observer != nil {
		s.observer(event)
	}
}
