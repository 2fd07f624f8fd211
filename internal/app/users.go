package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"

	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
)

// The account administration verbs: hush user list, and the admin actions
// of the admin pages on the command line (docs/decisions.md, D41). Each
// action is written to the admin log with the command line as its actor,
// which may act on any account, admins included: whoever runs hush against
// the database is the operator, and can always promote an admin again.

func init() {
	verbs["user list"] = (*env).userList
	for name, action := range userActions {
		verbs["user "+name] = func(e *env, ctx context.Context, args []string) error {
			return e.userAction(ctx, name, action, args)
		}
	}
}

// userActions are the admin actions the command line offers, by verb.
var userActions = map[string]push.AdminAction{
	"disable":         push.AdminDisable,
	"enable":          push.AdminEnable,
	"delete":          push.AdminDelete,
	"promote":         push.AdminPromote,
	"demote":          push.AdminDemote,
	"revoke-sessions": push.AdminRevokeSessions,
	"revoke-token":    push.AdminRevokeToken,
	"reset-2fa":       push.AdminResetTwoFactor,
}

// userActionDone says what an action did.
var userActionDone = map[push.AdminAction]string{
	push.AdminDisable:        "disabled %s: its sessions ended and its API token stopped working",
	push.AdminEnable:         "enabled %s",
	push.AdminDelete:         "deleted %s with its API token and pushes",
	push.AdminPromote:        "%s is now an administrator",
	push.AdminDemote:         "%s is no longer an administrator",
	push.AdminRevokeSessions: "signed %s out everywhere",
	push.AdminRevokeToken:    "revoked the API token of %s",
	push.AdminResetTwoFactor: "turned off two-factor authentication for %s",
}

// userActionUnchanged says that an action found the account as it would
// have left it. Deleting and signing out everywhere always act.
var userActionUnchanged = map[push.AdminAction]string{
	push.AdminDisable:        "%s is already disabled: nothing changed",
	push.AdminEnable:         "%s is not disabled: nothing changed",
	push.AdminPromote:        "%s is already an administrator: nothing changed",
	push.AdminDemote:         "%s is not an administrator: nothing changed",
	push.AdminRevokeToken:    "%s has no API token: nothing changed",
	push.AdminResetTwoFactor: "%s has no second factor: nothing changed",
}

// inDatabase names the database a verb acted on, for the line that says
// what it did: "(in SQLite ./data/hush.db)", "(in PostgreSQL hush@db/hush)".
func inDatabase(cfg *config.Config) string {
	return "(in " + cfg.DatabaseShown() + ")"
}

// cliActor is the command line as the admin log names it.
var cliActor = push.AdminActor{Name: "command line"}

// userAction serves hush user disable|enable|delete|promote|demote|
// revoke-sessions|revoke-token|reset-2fa --email E. Delete needs --yes.
func (e *env) userAction(ctx context.Context, name string, action push.AdminAction, args []string) error {
	var email string
	var yes bool
	cfg, err := e.adminFlags("user "+name, args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email address of the user (required)")
		if action == push.AdminDelete {
			fs.BoolVar(&yes, "yes", false, "really delete the account, its API token and all of its pushes")
		}
	})
	if err != nil {
		return err
	}
	if email == "" {
		return errors.New("--email is required")
	}
	if action == push.AdminDelete && !yes {
		return fmt.Errorf("this deletes %s, its API token and all of its pushes, and cannot be undone: add --yes to go ahead",
			service.NormalizeEmail(email))
	}
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := accountService(st, cfg)
	if action == push.AdminDelete {
		svc = e.deletingService(ctx, st, cfg)
	}
	u, err := userNamed(ctx, svc, email)
	if err != nil {
		return err
	}
	res, err := svc.Administer(ctx, cliActor, action, u.ID)
	if err != nil {
		return err
	}
	said := userActionDone[action]
	if !res.Changed {
		said = userActionUnchanged[action]
	}
	fmt.Fprintf(e.stdout, said+" %s\n", u.Email, inDatabase(cfg))
	return nil
}

// deletingService is accountService with the file store, so that deleting
// an account deletes its files from it at once. When the file store cannot
// be opened the account is deleted all the same, and its files, which no
// row names once it is gone, are left to the orphan scan of a running
// serve (docs/decisions.md, D14).
func (e *env) deletingService(ctx context.Context, st *store.Store, cfg *config.Config) *service.Service {
	log := newLogger(e.stderr, cfg.LogFormat, slog.LevelWarn)
	files, err := openFileStore(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(e.stderr, "hush: the file store cannot be opened (%v): the account's files are left to a running "+
			"hush serve, which deletes them within two hours\n", err)
		files = nil
	}
	return service.New(service.Deps{Store: st, Argon: secure.DefaultArgon(), Files: files, Log: log},
		service.Limits{Settings: cfg.Push})
}

// userList serves hush user list [--query Q]: every account (whose email
// contains Q), one a line.
func (e *env) userList(ctx context.Context, args []string) error {
	var query string
	cfg, err := e.adminFlags("user list", args, func(fs *flag.FlagSet) {
		fs.StringVar(&query, "query", "", "list only the accounts whose email contains this")
	})
	if err != nil {
		return err
	}
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	users, err := accountService(st, cfg).AllUsers(ctx, query)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tCREATED\tFLAGS\tACTIVE PUSHES")
	for _, u := range users {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\n", u.ID, u.Email, u.CreatedAt.UTC().Format("2006-01-02"), userFlags(u), u.ActivePushes)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d %s\n", len(users), plural(len(users), "account", "accounts"))
	return nil
}

// userFlags are an account's marks in hush user list.
func userFlags(u service.UserSummary) string {
	var f []string
	if u.Admin {
		f = append(f, "admin")
	}
	if u.Disabled() {
		f = append(f, "disabled")
	}
	if u.HasTwoFactor() {
		f = append(f, "2fa")
	}
	if u.HasToken {
		f = append(f, "token")
	}
	if len(f) == 0 {
		return "-"
	}
	return strings.Join(f, ",")
}
