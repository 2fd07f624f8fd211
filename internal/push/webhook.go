package push

import (
	"net/netip"
	"sort"
	"strings"
	"time"
)

// HookEvents is a set of webhook events (docs/decisions.md, D48): what an
// endpoint asks to be told of, one bit each.
type HookEvents int

// The webhook events.
const (
	HookCreated          HookEvents = 1 << iota // push.created
	HookViewed                                  // push.viewed
	HookPassphraseFailed                        // push.passphrase_failed
	HookFileDownloaded                          // push.file_downloaded
	HookExpired                                 // push.expired: its last view, its time, or the sweep
	HookDeleted                                 // push.deleted: expired by hand ("expire now", DELETE)

	// AllHookEvents is every event.
	AllHookEvents = HookCreated | HookViewed | HookPassphraseFailed | HookFileDownloaded | HookExpired | HookDeleted
)

var hookNames = []struct {
	e    HookEvents
	name string
}{
	{HookCreated, "push.created"},
	{HookViewed, "push.viewed"},
	{HookPassphraseFailed, "push.passphrase_failed"},
	{HookFileDownloaded, "push.file_downloaded"},
	{HookExpired, "push.expired"},
	{HookDeleted, "push.deleted"},
}

// HookEventNames are the names of every webhook event, in their order.
func HookEventNames() []string {
	out := make([]string, len(hookNames))
	for i, h := range hookNames {
		out[i] = h.name
	}
	return out
}

// Names lists the events of the set by name, in their order.
func (h HookEvents) Names() []string {
	out := []string{}
	for _, n := range hookNames {
		if h&n.e != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// String is the single event's name ("" for a set of several or none).
func (h HookEvents) String() string {
	if n := h.Names(); len(n) == 1 {
		return n[0]
	}
	return ""
}

// ParseHookEvents reads event names; it returns the names it does not know.
// "*" stands for every event.
func ParseHookEvents(names []string) (HookEvents, []string) {
	var set HookEvents
	var unknown []string
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "*" {
			set |= AllHookEvents
			continue
		}
		found := false
		for _, n := range hookNames {
			if n.name == name {
				set |= n.e
				found = true
			}
		}
		if !found {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	return set, unknown
}

// HookForEvent is the webhook event an audit entry of kind k raises; 0 for
// the entries that raise none (owner and admin views, uploads, dispatches,
// retrievals after expiry). An expire entry is written only when a push is
// expired by hand, so it is a deletion.
func HookForEvent(k EventKind) HookEvents {
	switch k {
	case EventCreation:
		return HookCreated
	case EventView:
		return HookViewed
	case EventFailedPassphrase:
		return HookPassphraseFailed
	case EventFileDownload:
		return HookFileDownloaded
	case EventExpire:
		return HookDeleted
	}
	return 0
}

// Webhook is an endpoint that is told of events of pushes: those of its
// owner's pushes, or of every push when it has no owner (an admin's).
type Webhook struct {
	ID      int64
	UserID  int64 // 0: the instance's, for every push
	URL     string
	Events  HookEvents
	Enabled bool
	// DisabledReason says why Hush turned the endpoint off ("" when it was
	// its owner, or it is enabled).
	DisabledReason string
	// FailingSince is when its deliveries began to fail without a success
	// since; zero while they succeed.
	FailingSince time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// HookMessage is one event for one endpoint: what its delivery sends, as
// the audit log recorded it. It holds no payload, note, passphrase, file
// name or link.
type HookMessage struct {
	ID         int64
	EndpointID int64
	MsgID      string // the webhook-id header: the same on every attempt
	EventID    string // the event's id: the same for every endpoint
	Event      HookEvents
	TokenKey   string // the push's token key (the token's time prefix and digest)
	PushKind   Kind
	PushName   string
	ViewsLeft  int
	ExpiresAt  time.Time
	IP         string
	UserAgent  string
	CreatedAt  time.Time
	State      string // pending, delivered or failed
	Attempts   int
	LastStatus int
}

// States of a webhook message.
const (
	HookPending   = "pending"
	HookDelivered = "delivered"
	HookFailed    = "failed"
)

// HookAttempt is one delivery attempt of a message, for the delivery log.
type HookAttempt struct {
	ID         int64
	MessageID  int64
	MsgID      string
	Event      HookEvents
	Attempt    int
	StatusCode int // 0: no response
	Latency    time.Duration
	Error      string
	NextRetry  time.Time // zero: no retry
	CreatedAt  time.Time
}

// HookOffLinked is the reason an endpoint was turned off when its account
// was first linked to its single sign-on identity with its earlier
// credentials ended (docs/decisions.md, D50): whoever made the endpoint may
// not have been the address's owner.
const HookOffLinked = "turned off when the account was linked to its provider"

// refusedPrefixes are the ranges a webhook may not reach besides those the
// netip predicates name: "this network", shared address space (CGNAT),
// IETF protocol assignments, documentation, benchmarking, reserved and
// broadcast in IPv4; in IPv6 the ranges that carry an IPv4 address inside
// (IPv4-compatible, NAT64, 6to4, and Teredo among the IETF protocol
// assignments), which a gateway or relay may take to any IPv4 address,
// the discard prefix, documentation and site-local.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("3fff::/20"),
	netip.MustParsePrefix("fec0::/10"),
}

// HookAddrRefused reports whether a webhook delivery may not connect to a
// unless private addresses are allowed: loopback, link-local (the cloud
// metadata address 169.254.169.254 among them), private, unspecified,
// multicast and the reserved ranges, IPv4 and IPv6, an IPv4-mapped IPv6
// address as its IPv4 address.
func HookAddrRefused(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsPrivate() || a.IsUnspecified() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
