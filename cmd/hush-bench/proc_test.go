package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A line of /proc/<pid>/stat with a command name holding spaces and a ')'.
const sampleStat = "27157 (hush serve) x) S 1 27157 27100 0 -1 4194560 2841 0 0 0 1534 287 0 0 20 0 8 0 123456 1311993856 6272 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	got, err := parseStat(sampleStat)
	if err != nil {
		t.Fatal(err)
	}
	if got.utime != 1534 || got.stime != 287 || got.total() != 1821 {
		t.Errorf("parseStat = %+v, want utime 1534 stime 287", got)
	}
	if got.ppid != 1 || got.cutime != 0 || got.withChildren() != 1821 {
		t.Errorf("parseStat = %+v, want ppid 1, no children's time", got)
	}
	reaped, err := parseStat("9 (postgres) S 4 9 9 0 -1 0 0 0 0 0 10 20 300 4000 20 0 1 0 1 1 1")
	if err != nil || reaped.ppid != 4 || reaped.total() != 30 || reaped.withChildren() != 4330 {
		t.Errorf("parseStat with reaped children = %+v, %v", reaped, err)
	}
	for _, bad := range []string{"", "27157 hush S 1", "1 (x) S 1 2 3", "1 (x) S 1 2 3 4 5 6 7 8 9 u 11 12 13",
		"1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 c"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

func TestParseStatus(t *testing.T) {
	text := "Name:\thush\nVmPeak:\t 1281240 kB\nVmHWM:\t   27748 kB\nVmRSS:\t   25088 kB\nThreads:\t8\n"
	got, err := parseStatus(text)
	if err != nil {
		t.Fatal(err)
	}
	if got.HWM != 27748 || got.RSS != 25088 {
		t.Errorf("parseStatus = %+v", got)
	}
	if _, err := parseStatus("Name:\thush\nVmRSS:\t1 kB\n"); err == nil {
		t.Error("a status without VmHWM was accepted")
	}
	if _, err := parseStatus("VmHWM:\t1 MB\nVmRSS:\t1 kB\n"); err == nil {
		t.Error("an unexpected unit was accepted")
	}
}

func TestReadOwnProcess(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	if _, err := readCPU(pid); err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	m, err := readMem(pid)
	if err != nil || m.RSS == 0 || m.HWM < m.RSS {
		t.Errorf("readMem = %+v, %v", m, err)
	}
	if n := clockTicks(); n == 0 {
		t.Error("clockTicks = 0")
	}
}

func TestParseMachineBusy(t *testing.T) {
	text := "cpu  71927 10 18411 194277 1077 5 1556 59 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
	got, err := parseMachineBusy(text)
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(71927 + 10 + 18411 + 5 + 1556 + 59); got != want {
		t.Errorf("busy = %d, want %d", got, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5\n", "cpu 1 2 x 4 5\n"} {
		if _, err := parseMachineBusy(bad); err == nil {
			t.Errorf("parseMachineBusy(%q) succeeded", bad)
		}
	}
	if _, err := readMachineBusy(); err != nil {
		t.Skipf("no /proc/stat here: %v", err)
	}
}

// readTrees counts a root's children while they run and, once reaped,
// through the root's cutime; a root that is gone is an error.
func TestReadTreesCountsChildren(t *testing.T) {
	self := os.Getpid()
	before, err := readTrees([]int{self})
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if before.procs != 1 || before.mem.RSS == 0 {
		t.Fatalf("before: %+v", before)
	}
	// A child that spins for about half a second of CPU, then sleeps.
	child := exec.Command("sh", "-c", `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; exec sleep 30`)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	pid := strconv.Itoa(child.Process.Pid)
	var spent uint64
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "sleep") {
			c, err := readCPU(pid)
			if err != nil {
				t.Fatal(err)
			}
			spent = c.total()
			break
		}
	}
	if spent == 0 {
		t.Skip("the child spent no measurable CPU time")
	}
	during, err := readTrees([]int{self})
	if err != nil {
		t.Fatal(err)
	}
	if during.procs != 2 || during.cpu < before.cpu+spent {
		t.Errorf("with a child of %d ticks: before %+v, during %+v", spent, before, during)
	}
	child.Process.Kill()
	child.Wait()
	after, err := readTrees([]int{self})
	if err != nil {
		t.Fatal(err)
	}
	if after.procs != 1 || after.cpu < before.cpu+spent {
		t.Errorf("after the child was reaped (%d ticks): before %+v, after %+v", spent, before, after)
	}
	if _, err := readTrees([]int{self, child.Process.Pid}); err == nil {
		t.Error("a root that is gone was accepted")
	}
}

func TestParsePss(t *testing.T) {
	text := "55d0c0a00000-7ffd3b7fe000 ---p 00000000 00:00 0                          [rollup]\nRss:               25088 kB\nPss:               21933 kB\nPss_Dirty:         18000 kB\n"
	if n, err := parsePss(text); err != nil || n != 21933 {
		t.Errorf("parsePss = %d, %v", n, err)
	}
	for _, bad := range []string{"Rss: 1 kB\n", "Pss: 1 MB\n", "Pss: x kB\n"} {
		if _, err := parsePss(bad); err == nil {
			t.Errorf("parsePss(%q) succeeded", bad)
		}
	}
	if n := readPss(strconv.Itoa(os.Getpid())); n == 0 {
		t.Skip("no smaps_rollup here")
	}
}
