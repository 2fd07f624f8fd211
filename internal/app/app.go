// Package app wires Hush together: configuration, store, keys, the HTTP
// server and the administrative verbs of the hush command.
package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"hush/internal/store"
)

// Version is the application version, in the dotted numeric form the API's
// application_version has: the one source of truth for every build, which
// scripts/image-context.sh reads from this line. A release changes it here.
const Version = "0.1.0"

// Build describes the source a binary was built from (git describe, as
// scripts/image-context.sh stamps it: 0ac05d7-dirty); "" when nothing
// stamped it. `hush version` and the admin overview show it beside
// Version; the API never reports it.
var Build = ""

// versionLine is Version with the build's description, when there is one:
// "0.1.0 (build 0ac05d7-dirty)".
func versionLine() string {
	if Build == "" {
		return Version
	}
	return Version + " (build " + Build + ")"
}

// env is how the program reads its environment.
type env struct {
	getenv func(string) string
	// environ lists the process's environment (NAME=value), for the
	// settings nothing reads (settingsRead.unused).
	environ func() []string
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
}

const usage = `Hush — share secrets through links that expire.

Usage:
  hush serve [flags]                         run the service (hush serve -h lists settings)
  hush migrate                               bring the database schema up to date
  hush user create --email E [--password P]  create a user (--password - prompts or reads stdin;
                                             without it a password is generated)
  hush user set-password --email E           set a user's password, read from stdin or a prompt
                                             (never an argument); signs the user out everywhere
  hush token create --email E                issue a new API token (the old one stops working)
  hush user create --admin --email E …       create an administrator (the admin pages)
  hush user list [--query Q]                 list the accounts (whose email contains Q)
  hush user VERB --email E                   VERB: disable, enable, delete --yes, promote, demote,
                                             revoke-sessions, revoke-token, reset-2fa (admin log)
  hush key rotate                            re-seal every secret under the current master key
  hush key generate                          print a new random master key
  hush migrate-data --from DB --to DB        copy a deployment to another database
                                             (e.g. sqlite:./data/hush.db → postgres://…)
  hush import-pwpush --from DB [--pwpush-master-key K] [--pwpush-storage DIR] [--skip-expired]
                                             copy a Password Pusher deployment in: users,
                                             API tokens, pushes with their links, files
  hush healthcheck [-ready]                  ask the running serve for /healthz (or /readyz);
                                             exit 0 when it answers 200 (the image's HEALTHCHECK)
  hush version                               print the version

The admin verbs read the same environment as serve (HUSH_DATA_DIR,
HUSH_DATABASE_URL, HUSH_MASTER_KEY, …) and also take -data-dir and
-database-url flags, which must not differ from those variables.
`

// verbs are the commands of hush, by name ("user create" is two words).
var verbs = map[string]func(e *env, ctx context.Context, args []string) error{
	"serve":         (*env).serve,
	"migrate":       (*env).migrate,
	"user create":   (*env).userCreate,
	"token create":  (*env).tokenCreate,
	"key rotate":    (*env).keyRotate,
	"key generate":  func(e *env, _ context.Context, _ []string) error { return e.keyGenerate() },
	"migrate-data":  (*env).migrateData,
	"import-pwpush": (*env).importPwpush,
	"healthcheck":   (*env).healthcheck,
	"version":       (*env).version,
	"-version":      (*env).version,
	"--version":     (*env).version,
	"help":          (*env).help,
	"-h":            (*env).help,
	"-help":         (*env).help,
	"--help":        (*env).help,
}

// Main runs the hush command and returns its exit status.
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{getenv: getenv, environ: os.Environ, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	verb, rest := args[1], args[2:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		verb += " " + rest[0]
		rest = rest[1:]
	}
	run, ok := verbs[verb]
	if !ok {
		if subs := subcommands(args[1]); len(subs) > 0 {
			if verb != args[1] {
				fmt.Fprintf(stderr, "hush: unknown command %q; ", verb)
			} else {
				fmt.Fprint(stderr, "hush: ")
			}
			fmt.Fprintf(stderr, "%q takes one of: %s\n", args[1], strings.Join(subs, ", "))
			return 2
		}
		fmt.Fprintf(stderr, "hush: unknown command %q\n\n%s", verb, usage)
		return 2
	}
	err := run(e, ctx, rest)
	if errors.Is(err, errHelp) {
		return 0
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	if store.IsLocked(err) {
		// SQLite's own words ("database is locked (5) (SQLITE_BUSY)")
		// say neither who holds the lock nor what to do.
		fmt.Fprintln(stderr, "hush: another process holds the database's write lock and did not release it within the busy timeout (HUSH_SQLITE_BUSY_TIMEOUT); try again once it is done")
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "hush: %v\n", err)
		return 1
	}
	return 0
}

func (e *env) version(context.Context, []string) error {
	fmt.Fprintf(e.stdout, "hush %s\n", versionLine())
	return nil
}

func (e *env) help(context.Context, []string) error {
	fmt.Fprint(e.stdout, usage)
	return nil
}

// subcommands lists, sorted, the verbs under group ("user": create, list,
// …); none when group is not one.
func subcommands(group string) []string {
	var subs []string
	for v := range verbs {
		if sub, ok := strings.CutPrefix(v, group+" "); ok {
			subs = append(subs, sub)
		}
	}
	slices.Sort(subs)
	return subs
}

// errUsage reports a usage error whose message was already printed.
var errUsage = errors.New("usage")

// errHelp reports that a verb printed its usage, as asked (-h, -help).
var errHelp = errors.New("help")

// parseFlags parses a verb's flags. Asked for help (-h, -help), it prints
// the verb's flags on stdout and returns errHelp (exit status 0); a flag
// it does not take prints them on stderr and returns errUsage.
func (e *env) parseFlags(fs *flag.FlagSet, args []string) error {
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	err := fs.Parse(args)
	fs.SetOutput(e.stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		e.stdout.Write(usage.Bytes())
		return errHelp
	case err != nil:
		e.stderr.Write(usage.Bytes())
		return errUsage
	}
	return nil
}
