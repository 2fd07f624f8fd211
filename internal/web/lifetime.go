package web

import (
	"time"

	"hush/internal/push"
)

// remaining says how long a push has before its time limit, as a count and
// its unit (days, hours or minutes): whole days as the API counts them
// (push.DaysRemaining), or, for a push that lasts less than a day
// (docs/decisions.md, D4), the hours or minutes left, a part counting as
// one. timeLeftIn writes it in a page's language.
func remaining(p *push.Push, now time.Time) (int, string) {
	if p.ExpireAfter == 0 {
		return p.DaysRemaining(now), "days"
	}
	if now.Before(p.CreatedAt) {
		now = p.CreatedAt
	}
	left := max(p.ExpiresAt().Sub(now), 0)
	if left >= time.Hour {
		return int((left + time.Hour - 1) / time.Hour), "hours"
	}
	return int((left + time.Minute - 1) / time.Minute), "minutes"
}
