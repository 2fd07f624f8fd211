package app

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the master end the test types on, and
// the terminal the command reads as its stdin.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	// Through the raw connection, not Fd, which would make reads block
	// past their deadline.
	rc, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if cerr := rc.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	}); cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

// TestUserCreatePrompts: user create --password - on a terminal asks for
// the password twice with echo off, as set-password does, instead of
// reading a line the terminal shows.
func TestUserCreatePrompts(t *testing.T) {
	master, tty := openPTY(t)
	env := withDB(t, map[string]string{"HUSH_DATA_DIR": t.TempDir()})
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"hush", "user", "create", "--email", "tty@example.com", "--password", "-"},
			envFrom(env), tty, &out, &errb)
	}()
	// Each line is typed once the prompt is shown and the terminal no
	// longer echoes, so that what is typed is not shown whatever the timing.
	for _, prompt := range []string{"New password: ", "Once more: "} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(errb.String(), prompt) && tio.Lflag&unix.ECHO == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no prompt %q with echo off; stderr %q", prompt, errb.String())
			}
			select {
			case code := <-done:
				t.Fatalf("user create ended (%d) without prompting %q: %q %q", code, prompt, out.String(), errb.String())
			case <-time.After(10 * time.Millisecond):
			}
		}
		if _, err := master.WriteString("typed on the terminal\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(out.String(), "created user tty@example.com") {
			t.Fatalf("user create: %d %q %q", code, out.String(), errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("user create did not end")
	}
	if err := master.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 256)
	n, _ := master.Read(b)
	if strings.Contains(string(b[:n]), "typed") {
		t.Errorf("the terminal showed the password: %q", b[:n])
	}
}
