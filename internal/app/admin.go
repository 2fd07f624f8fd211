package app

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"hush/internal/config"
	"hush/internal/push"
	"hush/internal/secure"
	"hush/internal/service"
	"hush/internal/store"
)

// adminFlags parses a verb's flags plus -data-dir and -database-url, and
// loads the configuration from them and the environment.
func (e *env) adminFlags(name string, args []string, define func(fs *flag.FlagSet)) (*config.Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	dataDir := fs.String("data-dir", "", "data directory (HUSH_DATA_DIR)")
	dbURL := fs.String("database-url", "", "database URL (HUSH_DATABASE_URL)")
	if define != nil {
		define(fs)
	}
	if err := e.parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		// Not echoed: a password typed where a flag was meant would be
		// written to the terminal and the logs that keep it.
		fmt.Fprintf(e.stderr, "hush %s: unexpected argument after the flags (not shown, in case it is a secret); see hush %s -h\n", name, name)
		return nil, errUsage
	}
	// The environment wins over flags (as for serve), so a flag that
	// differs from its variable would be ignored, and the verb would act
	// on another database than the one its command line names.
	for _, f := range []struct{ flag, env, value string }{
		{"data-dir", "HUSH_DATA_DIR", *dataDir},
		{"database-url", "HUSH_DATABASE_URL", *dbURL},
	} {
		set := strings.TrimSpace(e.getenv(f.env))
		if f.value == "" || set == "" || sameLocation(f.value, set) {
			continue
		}
		fmt.Fprintf(e.stderr, "hush %s: -%s differs from %s in the environment, which would win; unset %s or drop the flag\n",
			name, f.flag, f.env, f.env)
		return nil, errUsage
	}
	var cargs []string
	if *dataDir != "" {
		cargs = append(cargs, "-data-dir", *dataDir)
	}
	if *dbURL != "" {
		cargs = append(cargs, "-database-url", *dbURL)
	}
	return config.Load(cargs, e.getenv)
}

// sameLocation reports whether two values of -data-dir or -database-url
// name the same place: the same path (SQLite paths with or without their
// sqlite: or file: prefix), or the same URL.
func sameLocation(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if p, ok := config.SQLitePathOf(a); ok {
		a = p
	}
	if p, ok := config.SQLitePathOf(b); ok {
		b = p
	}
	if store.IsPostgresURL(a) || store.IsPostgresURL(b) {
		return a == b
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// migrate brings the schema up to date, then converts the pushes that still
// hold a clear url_token, which needs the master key (a database without
// such pushes migrates without one).
func (e *env) migrate(ctx context.Context, args []string) error {
	cfg, err := e.adminFlags("migrate", args, nil)
	if err != nil {
		return err
	}
	st, err := openDatabase(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	applied, err := st.Migrate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "the %s database is up to date (%d migrations applied now)\n", st.Engine(), len(applied))
	legacy, err := st.LegacyCount(ctx)
	if err != nil || legacy == 0 {
		return err
	}
	log := newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel)
	keys, err := loadKeys(cfg, log, false)
	if err != nil {
		return fmt.Errorf("%d stored secret links must be converted, which needs the master key: %w", legacy, err)
	}
	if err := checkKey(ctx, st, keys); err != nil {
		return err
	}
	if err := migrateTokens(ctx, st, keys, log); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "converted %d stored secret links: the database now holds none\n", legacy)
	return nil
}

// accountService is a service over the configured database for the
// account verbs, which need neither the master key nor the file store.
func accountService(st *store.Store, cfg *config.Config) *service.Service {
	return service.New(service.Deps{Store: st, Argon: secure.DefaultArgon()}, service.Limits{Settings: cfg.Push})
}

func (e *env) userCreate(ctx context.Context, args []string) error {
	var email, password string
	var admin bool
	cfg, err := e.adminFlags("user create", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email address of the user (required)")
		fs.StringVar(&password, "password", "", `password; "-" reads it from a prompt on a terminal or else from stdin; empty generates one`)
		fs.BoolVar(&admin, "admin", false, "give the user the admin role (the admin pages)")
	})
	if err != nil {
		return err
	}
	if !service.ValidEmail(service.NormalizeEmail(email)) {
		return fmt.Errorf("invalid email address %q", email)
	}
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	// A taken address is said before anything about the password (and
	// before a prompt asks for one): the operator must not fix a password
	// for an account that exists.
	svc := accountService(st, cfg)
	if _, err := svc.UserByEmail(ctx, email); err == nil {
		return fmt.Errorf("a user with email %s already exists", service.NormalizeEmail(email))
	}
	password, generated, err := e.createPassword(password)
	if err != nil {
		return err
	}
	u, err := svc.AdminCreateUser(ctx, cliActor, email, password, admin)
	var pe *push.Error
	switch {
	case errors.As(err, &pe) && pe.Message == service.MsgEmailTaken:
		return fmt.Errorf("a user with email %s already exists", service.NormalizeEmail(email))
	case errors.As(err, &pe) && pe.Code == push.CodeInvalid:
		return invalidInput(pe)
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "created user %s%s %s\n", u.Email, map[bool]string{true: " (administrator)"}[admin], inDatabase(cfg))
	if generated {
		fmt.Fprintf(e.stdout, "generated password (shown once): %s\n", password)
	}
	return nil
}

// userNamed is the account of email, or an error that says there is none.
func userNamed(ctx context.Context, svc *service.Service, email string) (*push.User, error) {
	u, err := svc.UserByEmail(ctx, email)
	if push.ErrorCode(err) == push.CodeNotFound {
		return nil, fmt.Errorf("no user with email %s", service.NormalizeEmail(email))
	}
	return u, err
}

// invalidInput is a refusal of the service said as a command-line error:
// "The password must be …." becomes "the password must be …".
func invalidInput(pe *push.Error) error {
	return errors.New(strings.ToLower(pe.Message[:1]) + strings.TrimSuffix(pe.Message[1:], "."))
}

// createPassword is the password user create was given: "-" reads it as
// set-password does (a prompt on a terminal, else the first line of
// stdin), "" generates one (generated is then true). A password given as
// the argument itself is taken, with a warning: other users of the
// machine see it in ps, and it stays in shell history.
func (e *env) createPassword(flag string) (password string, generated bool, err error) {
	switch flag {
	case "-":
		password, err := e.readNewPassword()
		return password, false, err
	case "":
		password, err := secure.NewToken(12)
		return password, true, err
	}
	fmt.Fprintln(e.stderr, "hush user create: warning: a password given as an argument is seen by other users of this machine (ps) and stays in shell history; --password - reads it from a prompt or stdin")
	return flag, false, nil
}

func (e *env) tokenCreate(ctx context.Context, args []string) error {
	var email string
	cfg, err := e.adminFlags("token create", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email address of the user (required)")
	})
	if err != nil {
		return err
	}
	if email == "" {
		return errors.New("--email is required")
	}
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	svc := accountService(st, cfg)
	u, err := userNamed(ctx, svc, email)
	if err != nil {
		return err
	}
	token, err := svc.AdminReplaceToken(ctx, cliActor, u)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "new API token for %s %s (shown once; any previous token no longer works):\n%s\n", u.Email, inDatabase(cfg), token)
	return nil
}

func (e *env) keyRotate(ctx context.Context, args []string) error {
	settle := 2*keyWatchEvery + time.Second
	cfg, err := e.adminFlags("key rotate", args, func(fs *flag.FlagSet) {
		fs.DurationVar(&settle, "settle", settle, "how long to wait, once the data is re-sealed, for serve instances "+
			"still on the old key to stop sealing, before re-sealing what they sealed meanwhile (0: no wait)")
	})
	if err != nil {
		return err
	}
	keys, st, err := openKeyed(ctx, cfg, newLogger(e.stderr, cfg.LogFormat, cfg.LogLevel), false)
	if err != nil {
		return err
	}
	defer st.Close()
	reseal := func() (int, error) {
		n, err := st.Reseal(ctx, func(tokenKey string, f store.SealedField, sealed []byte) ([]byte, bool, error) {
			return service.Reseal(keys, tokenKey, string(f), sealed)
		})
		if err != nil {
			return n, fmt.Errorf("after re-sealing %d values (run it again to finish; the old key is still needed until it completes): %w", n, err)
		}
		return n, nil
	}
	n, err := reseal()
	if err != nil {
		return err
	}
	// Only now, with every value under the current key, may the check
	// value follow: it is what lets serve start without the old key, and
	// what tells a serve still on the old key to stop sealing (watchKey).
	if err := resealKeyCheck(ctx, st, keys); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "re-sealed %d values under the current master key\n", n)
	if settle <= 0 {
		return nil
	}
	fmt.Fprintf(e.stdout, "waiting %s for serve instances still on the old key to stop sealing…\n", settle)
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return ctx.Err()
	}
	if n, err = reseal(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "re-sealed %d more values, sealed meanwhile under the old key\n", n)
	return nil
}

func (e *env) keyGenerate() error {
	k, err := secure.GenerateKey()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%x\n", k)
	return nil
}

func init() { verbs["user set-password"] = (*env).userSetPassword }

// userSetPassword serves `hush user set-password --email E`: a new password
// for the user, read from a prompt on a terminal (twice, not echoed) or
// else from the first line of stdin — never from an argument, which other
// users of the machine see in ps and which stays in shell history. Every
// web session of the account ends.
func (e *env) userSetPassword(ctx context.Context, args []string) error {
	var email string
	cfg, err := e.adminFlags("user set-password", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "email address of the user (required); the password is read from stdin or a prompt")
	})
	if err != nil {
		return err
	}
	if email == "" {
		return errors.New("--email is required (the password is read from stdin or a prompt, never from an argument)")
	}
	password, err := e.readNewPassword()
	if err != nil {
		return err
	}
	st, err := e.openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := accountService(st, cfg).AdminSetPassword(ctx, cliActor, email, password)
	var pe *push.Error
	switch {
	case push.ErrorCode(err) == push.CodeNotFound:
		return fmt.Errorf("no user with email %s", service.NormalizeEmail(email))
	case errors.As(err, &pe) && pe.Code == push.CodeInvalid:
		return invalidInput(pe)
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "set a new password for %s; every web session of the account was signed out %s\n", u.Email, inDatabase(cfg))
	return nil
}

// readNewPassword reads a password: on a terminal from a prompt, twice and
// not echoed; otherwise the first line of stdin.
func (e *env) readNewPassword() (string, error) {
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(e.stderr, "New password: ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		fmt.Fprint(e.stderr, "Once more: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", fmt.Errorf("read password: %w", err)
		}
		if string(first) != string(second) {
			return "", errors.New("the two passwords differ")
		}
		return string(first), nil
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read password from stdin: %w", err)
	}
	if line = strings.TrimRight(line, "\r\n"); line == "" {
		return "", errors.New("no password on stdin (the first line is the password)")
	}
	return line, nil
}
