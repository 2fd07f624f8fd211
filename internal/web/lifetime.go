package web

import (
	"fmt"
	"strings"
	"time"

	"hush/internal/push"
)

// count says n things: "1 day", "3 days".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// timeLeft says, for people, how long a push has before its time limit:
// whole days as the API counts them (push.DaysRemaining), or, for a push
// that lasts less than a day (docs/decisions.md, D4), the hours or minutes
// left, a part counting as one.
func timeLeft(p *push.Push, now time.Time) string {
	n, unit := remaining(p, now)
	return count(n, strings.TrimSuffix(unit, "s"), unit)
}

// remaining is timeLeft as a count and its unit: days, hours or minutes.
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

// lifetime says, for people, the time limit a push was given: "7 days",
// "15 minutes", "6 hours".
func lifetime(p *push.Push) string {
	return timeLeft(p, p.CreatedAt)
}
