package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"hush/internal/pwpush"
	"hush/internal/service"
)

// importSummary counts what an import-pwpush run did. It never holds a
// secret: failures name pushes by their id in Password Pusher's database.
type importSummary struct {
	again bool // the database was filled by an earlier run

	usersNew, usersThere, tokens, noPassword, withOTP int
	pushesLive, pushesExpired, pushesThere            int
	skippedExpired                                    int
	pushesLeft                                        int64 // not imported: no key decrypts them
	logs, logsLeftOut                                 int
	files                                             int
	bytes, pendingBytes                               int64
	failures                                          []string

	// taken are the users whose address is held by a Hush account no
	// import made for them, in the order met, and leftBehind their pushes
	// not imported for it, by user id.
	taken      []takenUser
	leftBehind map[int64]int
}

// takenUser is a Password Pusher user whose address another account holds.
type takenUser struct {
	id    int64
	email string
}

func (s *importSummary) addUser(u pwpush.User, got service.ImportedUser) {
	if got.Taken {
		s.taken = append(s.taken, takenUser{u.ID, service.NormalizeEmail(u.Email)})
		return
	}
	if !got.Created {
		s.usersThere++
		return
	}
	s.usersNew++
	if got.Token {
		s.tokens++
	}
	if !got.Password {
		s.noPassword++
	}
	if u.OTPRequired {
		s.withOTP++
	}
}

// leaveBehind counts a push of the user id left behind, as its address is
// another account's.
func (s *importSummary) leaveBehind(id int64) {
	if s.leftBehind == nil {
		s.leftBehind = map[int64]int{}
	}
	s.leftBehind[id]++
}

func (s *importSummary) addPush(live bool, in service.ImportPush, _ pwpush.Push) {
	if live {
		s.pushesLive++
	} else {
		s.pushesExpired++
	}
	s.logs += len(in.Events)
	s.files += len(in.Files)
	s.bytes += s.pendingBytes
}

// print writes the summary: what was imported, what was there already,
// what was left behind and why.
func (s *importSummary) print(w io.Writer, im *importer) {
	fmt.Fprintf(w, "Imported Password Pusher (%s database, schema %s) into Hush's %s database:\n",
		im.src.Engine(), orNone(im.src.SchemaVersion()), im.st.Engine())
	if s.again {
		fmt.Fprintln(w, "  (an earlier run filled this database: what it imported was skipped)")
	}
	fmt.Fprintf(w, "  users:  %d imported (%d with their API token), %d already there (skipped)",
		s.usersNew, s.tokens, s.usersThere)
	if len(s.taken) > 0 {
		fmt.Fprintf(w, ", %s another Hush account holds (not imported, see the warnings)",
			plural(len(s.taken), "whose address", "whose addresses"))
	}
	fmt.Fprintln(w)
	leftBehind := 0
	for _, n := range s.leftBehind {
		leftBehind += n
	}
	if s.pushesLeft > 0 {
		fmt.Fprintf(w, "  pushes: none imported: %d skipped, as %s\n", s.pushesLeft, im.noKeyWhy)
	} else {
		fmt.Fprintf(w, "  pushes: %d imported (%d live, %d expired), %d already there (skipped), %d expired left behind (--skip-expired), %d failed",
			s.pushesLive+s.pushesExpired, s.pushesLive, s.pushesExpired, s.pushesThere, s.skippedExpired, len(s.failures))
		if leftBehind > 0 {
			fmt.Fprintf(w, ", %d left behind (their owner's address is another Hush account's)", leftBehind)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  audit log entries: %d imported", s.logs)
		if s.logsLeftOut > 0 {
			fmt.Fprintf(w, ", %d left out (edit and e-mail entries, which Hush does not keep)", s.logsLeftOut)
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  files:  %d (%s), encrypted into Hush's file store\n", s.files, byteSize(s.bytes))
	}
	for _, f := range s.failures {
		fmt.Fprintf(w, "  failed: %s\n", f)
	}
	for _, u := range s.taken {
		n := s.leftBehind[u.id]
		fmt.Fprintf(w, "warning: %s (Password Pusher user %d) belongs to a Hush account that no import made for that user: ",
			u.email, u.id)
		switch {
		case im.keys == nil:
			fmt.Fprintln(w, "the user's pushes will be left behind, so that account does not get them")
		case n == 0:
			fmt.Fprintln(w, "the user has no push to leave behind")
		default:
			fmt.Fprintf(w, "%s left behind, so that account does not get %s\n", plural(n, "push of the user's", "pushes of the user's"),
				pluralPronoun(n))
		}
	}
	if s.noPassword > 0 {
		fmt.Fprintf(w, "note: %s no password Hush can check: they use their API token, or an operator deletes and re-creates "+
			"the account (hush user create)\n", plural(s.noPassword, "user has", "users have"))
	}
	if s.withOTP > 0 {
		fmt.Fprintf(w, "note: %s in with a one-time code too; Hush has no second factor: they sign in with their password alone\n",
			plural(s.withOTP, "user signed", "users signed"))
	}
	if s.usersNew > 0 {
		fmt.Fprintln(w, "note: passwords keep working; each is re-hashed with Argon2id at its user's first sign-in")
	}
}

// plural is n followed by one or many, as n asks.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// pluralPronoun is "it" for 1, "them" otherwise.
func pluralPronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// byteSize writes n bytes for people: 512 B, 3.4 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// progressLine shows how far an import is on stderr: on a terminal one
// line, rewritten in place at most ten times a second; elsewhere (a log, a
// pipe) a line every ten seconds. It shows counts only.
type progressLine struct {
	w        io.Writer
	tty      bool
	every    time.Duration
	last     time.Time
	shown    bool
	users    int64
	pushes   int64
	failures int
	total    pwpush.Counts
}

func newProgressLine(w io.Writer) *progressLine {
	p := &progressLine{w: w, every: 10 * time.Second}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty, p.every = true, 100*time.Millisecond
		}
	}
	return p
}

func (p *progressLine) totals(c pwpush.Counts) { p.total = c; p.show(true) }
func (p *progressLine) user()                  { p.users++; p.show(false) }
func (p *progressLine) push()                  { p.pushes++; p.show(false) }
func (p *progressLine) failed()                { p.failures++ }

// done shows the final counts and ends the line.
func (p *progressLine) done() {
	p.show(true)
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

func (p *progressLine) show(force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	line := fmt.Sprintf("importing: users %d/%d · pushes %d/%d %s", p.users, p.total.Users, p.pushes, p.total.Pushes,
		bar(p.users+p.pushes, p.total.Users+p.total.Pushes))
	if p.failures > 0 {
		line += fmt.Sprintf(" · %d failed", p.failures)
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\x1b[K"+line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.shown = true
}

// bar draws done out of total as 20 cells and a percentage.
func bar(done, total int64) string {
	pct := int64(100)
	if total > 0 {
		pct = min(done*100/total, 100)
	}
	n := int(pct / 5)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", 20-n) + fmt.Sprintf("] %3d%%", pct)
}
