package app

import (
	"bufio"
	"debug/elf"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func prog(typ elf.ProgType, flags elf.ProgFlag, vaddr, memsz uint64) *elf.Prog {
	return &elf.Prog{ProgHeader: elf.ProgHeader{Type: typ, Flags: flags, Vaddr: vaddr, Memsz: memsz}}
}

// TestReadOnlyRanges: only whole pages of segments that are neither
// writable nor relocated, and nothing of a position-independent file.
func TestReadOnlyRanges(t *testing.T) {
	page := uint64(os.Getpagesize())
	exec := func(progs ...*elf.Prog) *elf.File {
		return &elf.File{FileHeader: elf.FileHeader{Type: elf.ET_EXEC}, Progs: progs}
	}
	cases := []struct {
		name string
		f    *elf.File
		want []span
	}{
		{"text and rodata", exec(
			prog(elf.PT_LOAD, elf.PF_R|elf.PF_X, 0x400000, 10*page),
			prog(elf.PT_LOAD, elf.PF_R, 0x400000+10*page, 4*page),
			prog(elf.PT_LOAD, elf.PF_R|elf.PF_W, 0x400000+14*page, 4*page),
		), []span{{0x400000, 0x400000 + 10*page}, {0x400000 + 10*page, 0x400000 + 14*page}}},
		{"partial pages are kept", exec(
			prog(elf.PT_LOAD, elf.PF_R, 0x400000+100, 3*page),
		), []span{{0x400000 + page, 0x400000 + 3*page}}},
		{"less than a page", exec(prog(elf.PT_LOAD, elf.PF_R, 0x400000+100, page-200)), nil},
		{"relocated read-only data is kept", exec(
			prog(elf.PT_LOAD, elf.PF_R|elf.PF_X, 0x400000, 10*page),
			prog(elf.PT_LOAD, elf.PF_R, 0x400000+10*page, 4*page),
			prog(elf.PT_GNU_RELRO, elf.PF_R, 0x400000+13*page+8, 16),
		), []span{{0x400000, 0x400000 + 10*page}}},
		{"position-independent", &elf.File{FileHeader: elf.FileHeader{Type: elf.ET_DYN}, Progs: []*elf.Prog{
			prog(elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, 10*page),
		}}, nil},
	}
	for _, c := range cases {
		got := readOnlyRanges(c.f)
		if len(got) != len(c.want) {
			t.Errorf("%s: %x, want %x", c.name, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: %x, want %x", c.name, got, c.want)
			}
		}
	}
}

// startPagesProbe lives in the executable's writable data (it has a
// non-zero initial value); a release that reached writable pages would
// give it back its initial contents.
var startPagesProbe = [4 * 4096]byte{1}

// TestReleaseStartPages releases this test binary's read-only pages: most
// of what was resident is gone, the program runs on, and what it wrote to
// its data is still there.
func TestReleaseStartPages(t *testing.T) {
	skipUnlessReleasable(t)
	for i := range startPagesProbe {
		startPagesProbe[i] = byte(i%251) + 2
	}
	before := readOnlyResidentKiB(t)
	released := releaseStartPages()
	after := readOnlyResidentKiB(t)
	t.Logf("read-only pages resident: %d KiB before, %d KiB after; %d KiB released", before, after, released>>10)
	if released <= 0 {
		t.Fatalf("released %d bytes", released)
	}
	if after*2 > before {
		t.Errorf("%d KiB of the executable's read-only pages resident after the release, %d before: want less than half", after, before)
	}
	for i := range startPagesProbe {
		if startPagesProbe[i] != byte(i%251)+2 {
			t.Fatalf("writable data changed at byte %d: %d", i, startPagesProbe[i])
		}
	}
}

// readOnlyResidentKiB sums the resident size of the mappings of this
// executable that are not writable.
func readOnlyResidentKiB(t *testing.T) int64 {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total int64
	ours := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-"):
			ours = len(fields) >= 6 && fields[5] == exe && !strings.Contains(fields[1], "w")
		case ours && fields[0] == "Rss:":
			kib, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kib
		}
	}
	if total == 0 {
		t.Fatalf("no resident read-only mapping of %s found", exe)
	}
	return total
}

// TestServeReleasesStartPages: hush serve releases them once it has
// started, before it listens.
func TestServeReleasesStartPages(t *testing.T) {
	skipUnlessReleasable(t)
	srv := startServe(t, map[string]string{"HUSH_DATA_DIR": t.TempDir(), "HUSH_LOG_LEVEL": "debug"})
	m := regexp.MustCompile(`msg="start-up pages released" bytes=(\d+)`).FindStringSubmatch(srv.log.String())
	if m == nil {
		t.Fatalf("no release logged:\n%s", srv.log.String())
	}
	if n, _ := strconv.ParseInt(m[1], 10, 64); n < 1<<20 {
		t.Errorf("released %d bytes, want the executable's read-only segments (megabytes)", n)
	}
}

// skipUnlessReleasable skips where releaseStartPages releases nothing on
// purpose: under a debugger, or in a position-independent test binary.
func skipUnlessReleasable(t *testing.T) {
	t.Helper()
	if traced() {
		t.Skip("a debugger is attached: the pages are kept on purpose")
	}
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		t.Skipf("the test binary is %v, not a position-dependent executable: nothing is released", f.Type)
	}
}
