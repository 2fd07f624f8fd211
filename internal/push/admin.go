package push

import "time"

// AdminAction is what an admin may do to an account.
type AdminAction string

// The admin actions, by the names the admin log shows.
const (
	AdminDisable        AdminAction = "disable"          // the account signs in nowhere; its sessions end, its token stops working
	AdminEnable         AdminAction = "enable"           // undoes disable (sessions stay ended)
	AdminDelete         AdminAction = "delete"           // the account and everything it owns
	AdminRevokeSessions AdminAction = "revoke_sessions"  // every web session of the account ends
	AdminRevokeToken    AdminAction = "revoke_token"     // the account's API token is deleted
	AdminPromote        AdminAction = "promote"          // the account becomes an admin
	AdminDemote         AdminAction = "demote"           // the account is an admin no more
	AdminResetTwoFactor AdminAction = "reset_two_factor" // the account's second factor is turned off
	AdminSendReset      AdminAction = "send_reset"       // a password reset link is emailed to the account
)

// AdminActions lists every admin action of the admin pages (the command
// line takes them too).
var AdminActions = []AdminAction{AdminDisable, AdminEnable, AdminDelete, AdminRevokeSessions, AdminRevokeToken,
	AdminPromote, AdminDemote, AdminResetTwoFactor, AdminSendReset}

// The actions only the command line takes, by the names the admin log
// shows: hush user create, hush user set-password and hush token create.
const (
	AdminCreate      AdminAction = "create"       // the account was made
	AdminSetPassword AdminAction = "set_password" // the account got a new password; its sessions ended
	AdminNewToken    AdminAction = "new_token"    // the account got a new API token, which replaced any earlier one
)

// CommandLineActions lists the actions only the command line takes; the
// admin pages offer none of them, but their log shows them.
var CommandLineActions = []AdminAction{AdminCreate, AdminSetPassword, AdminNewToken}

// AdminActor is who performs an admin action: an admin signed in on the web
// (ID is the account), or the operator on the command line (ID 0).
type AdminActor struct {
	ID   int64
	Name string // the admin's email, or how the command line names its operator
	IP   string // the client address of a web request; "" on the command line
}

// AdminResult is what an admin action did: the account's email, and
// whether anything changed (an action that finds the account as it would
// leave it changes nothing, and writes no line of the admin log).
type AdminResult struct {
	Target  string
	Changed bool
}

// AdminEntry is one line of the admin log: who did what to whom, when.
type AdminEntry struct {
	ID       int64
	At       time.Time
	ActorID  int64 // 0: the command line
	Actor    string
	Action   AdminAction
	TargetID int64
	Target   string // the account's email when the action was taken
	IP       string
}
