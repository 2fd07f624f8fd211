package pwpush

import (
	"context"
	"database/sql"
	"iter"
	"strconv"
	"time"
)

// AuditKind is the kind of an audit log entry, Password Pusher's
// audit_logs.kind enum.
type AuditKind int

// The values of audit_logs.kind (enum :kind, [:creation, :view,
// :failed_view, :expire, :failed_passphrase, :admin_view, :owner_view,
// :edit, :creation_email_send]).
const (
	AuditCreation          AuditKind = 0
	AuditView              AuditKind = 1 // a counted view
	AuditFailedView        AuditKind = 2 // a retrieval of an expired push; counted too
	AuditExpire            AuditKind = 3 // deleted by its owner, a viewer or an admin
	AuditFailedPassphrase  AuditKind = 4
	AuditAdminView         AuditKind = 5 // not counted
	AuditOwnerView         AuditKind = 6 // not counted
	AuditEdit              AuditKind = 7
	AuditCreationEmailSend AuditKind = 8 // the push's link was emailed at creation
)

// String returns the kind's name in Password Pusher; "kind(N)" for a
// value it does not define.
func (k AuditKind) String() string {
	switch k {
	case AuditCreation:
		return "creation"
	case AuditView:
		return "view"
	case AuditFailedView:
		return "failed_view"
	case AuditExpire:
		return "expire"
	case AuditFailedPassphrase:
		return "failed_passphrase"
	case AuditAdminView:
		return "admin_view"
	case AuditOwnerView:
		return "owner_view"
	case AuditEdit:
		return "edit"
	case AuditCreationEmailSend:
		return "creation_email_send"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Counted reports whether Password Pusher counts an entry of this kind as
// a view against the push's expire_after_views.
func (k AuditKind) Counted() bool { return k == AuditView || k == AuditFailedView }

// AuditLog is a row of Password Pusher's audit_logs table.
type AuditLog struct {
	ID        int64
	PushID    int64
	Kind      AuditKind
	IP        string
	UserAgent string // at most 255 characters, as Password Pusher cuts it
	Referrer  string
	UserID    int64 // the signed-in user who acted; 0 for none
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AuditLogs streams the audit log of one push, oldest first (Password
// Pusher's order: created_at, then id).
func (s *Source) AuditLogs(ctx context.Context, pushID int64) iter.Seq2[AuditLog, error] {
	return stream(ctx, s, "read audit logs", `SELECT id, push_id, kind, ip, user_agent, referrer, user_id,
		created_at, updated_at FROM audit_logs WHERE push_id = $1 ORDER BY created_at, id`, []any{pushID}, scanAudit)
}

func scanAudit(r *sql.Rows) (AuditLog, error) {
	var (
		a                   AuditLog
		kind, push, user    intCol
		ip, agent, referrer sql.NullString
		created, updated    timeCol
	)
	if err := r.Scan(&a.ID, &push, &kind, &ip, &agent, &referrer, &user, &created, &updated); err != nil {
		return AuditLog{}, err
	}
	a.PushID, a.Kind, a.UserID = push.v, AuditKind(kind.v), user.v
	a.IP, a.UserAgent, a.Referrer = ip.String, agent.String, referrer.String
	a.CreatedAt, a.UpdatedAt = created.v, updated.v
	return a, nil
}
