package push

// Kind is the type of a push.
type Kind string

// The push kinds of the spec.
const (
	KindText Kind = "text"
	KindFile Kind = "file"
	KindURL  Kind = "url"
	KindQR   Kind = "qr"
)

// ParseKind accepts exactly the four kind names (case-sensitive, as Password Pusher).
func ParseKind(s string) (Kind, bool) {
	switch Kind(s) {
	case KindText, KindFile, KindURL, KindQR:
		return Kind(s), true
	}
	return "", false
}
