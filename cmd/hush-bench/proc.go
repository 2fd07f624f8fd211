package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// procCPU is a process's CPU time so far, in clock ticks: its own (utime,
// stime) and that of its children it has waited for (cutime, cstime).
type procCPU struct {
	utime, stime   uint64
	cutime, cstime uint64
	ppid           int
}

// total is the process's own CPU time.
func (c procCPU) total() uint64 { return c.utime + c.stime }

// withChildren is total plus the CPU time of the children it has reaped.
func (c procCPU) withChildren() uint64 { return c.total() + c.cutime + c.cstime }

// parseStat reads the parent's pid (field 4), utime, stime, cutime and
// cstime (fields 14 to 17, see proc(5)) from the text of /proc/<pid>/stat.
// The command name (field 2) is in parentheses and may itself hold spaces
// and parentheses, so fields are counted from the last ')'.
func parseStat(line string) (procCPU, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return procCPU{}, errors.New("stat: no command name")
	}
	f := strings.Fields(line[end+1:]) // f[0] is field 3 (state)
	if len(f) < 15 {
		return procCPU{}, fmt.Errorf("stat: %d fields after the command name, want at least 15", len(f))
	}
	var v [5]uint64
	for i, field := range []int{1, 11, 12, 13, 14} {
		n, err := strconv.ParseUint(f[field], 10, 64)
		if err != nil {
			return procCPU{}, fmt.Errorf("stat: field %d: %w", field+3, err)
		}
		v[i] = n
	}
	return procCPU{ppid: int(v[0]), utime: v[1], stime: v[2], cutime: v[3], cstime: v[4]}, nil
}

// readCPU returns the CPU time of process pid ("self" for this one).
func readCPU(pid string) (procCPU, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procCPU{}, err
	}
	return parseStat(string(b))
}

// parseMachineBusy returns the CPU time (in clock ticks) that all CPUs
// together spent on anything but idling and waiting for I/O, from the first
// line ("cpu  user nice system idle iowait irq softirq steal …") of
// /proc/stat. Guest time is already counted in user and nice.
func parseMachineBusy(text string) (uint64, error) {
	line, _, _ := strings.Cut(text, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, errors.New("/proc/stat: no cpu line")
	}
	var busy uint64
	for i, v := range f[1:min(len(f), 9)] { // user … steal
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %w", err)
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, nil
}

// readMachineBusy returns the busy CPU time of the whole machine.
func readMachineBusy() (uint64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseMachineBusy(string(b))
}

// procMem is a process's resident set size, in KiB.
type procMem struct {
	HWM uint64 // VmHWM: the peak since the process started
	RSS uint64 // VmRSS: now
}

// parseStatus reads VmHWM and VmRSS from the text of /proc/<pid>/status.
func parseStatus(text string) (procMem, error) {
	var m procMem
	found := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return procMem{}, fmt.Errorf("status: %s: unexpected %q", key, val)
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return procMem{}, fmt.Errorf("status: %s: %w", key, err)
		}
		if key == "VmHWM" {
			m.HWM = n
		} else {
			m.RSS = n
		}
		found++
	}
	if found != 2 {
		return procMem{}, errors.New("status: VmHWM or VmRSS missing")
	}
	return m, nil
}

// readMem returns the memory figures of process pid.
func readMem(pid string) (procMem, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return procMem{}, err
	}
	return parseStatus(string(b))
}

// clockTicks returns the kernel's USER_HZ, the unit of utime and stime:
// `getconf CLK_TCK` when it answers, else 100, its value on every Linux
// architecture in practice.
func clockTicks() uint64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if n, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 100
}

// treeUsage is what a server's processes used: the CPU time of each root
// and of all its descendants (alive, or reaped and counted in their
// parent's cutime and cstime), the sum of their resident sets, and the sum
// of their proportional set sizes (each shared page divided among the
// processes sharing it, so PostgreSQL's shared buffers count once).
type treeUsage struct {
	cpu   uint64 // clock ticks
	mem   procMem
	pss   uint64 // KiB; 0 where smaps_rollup cannot be read
	procs int
}

// readTrees measures the process trees rooted at roots: a server and the
// processes it started (PostgreSQL's backends, Redis's snapshot child),
// or several servers (instances and their database) counted together.
// A root that is gone is an error; a descendant that ends while it is read
// is skipped, its time then being in its parent's cutime.
func readTrees(roots []int) (treeUsage, error) {
	var u treeUsage
	children, err := childrenOf()
	if err != nil {
		return u, err
	}
	seen := map[int]bool{}
	var walk func(pid int, root bool) error
	walk = func(pid int, root bool) error {
		if seen[pid] {
			return nil
		}
		seen[pid] = true
		id := strconv.Itoa(pid)
		c, err := readCPU(id)
		if err != nil {
			if root {
				return fmt.Errorf("server process %d: %w", pid, err)
			}
			return nil
		}
		// A zombie has no memory left but still its CPU time, until
		// its parent reaps it and adds that time to its cutime.
		m, err := readMem(id)
		if err != nil && root {
			return fmt.Errorf("server process %d: %w", pid, err)
		}
		u.cpu += c.withChildren()
		u.mem.HWM += m.HWM
		u.mem.RSS += m.RSS
		u.pss += readPss(id)
		u.procs++
		for _, child := range children[pid] {
			if err := walk(child, false); err != nil {
				return err
			}
		}
		return nil
	}
	for _, pid := range roots {
		if err := walk(pid, true); err != nil {
			return u, err
		}
	}
	return u, nil
}

// childrenOf maps every process's pid to its children's, from /proc.
func childrenOf() (map[int][]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		c, err := readCPU(e.Name())
		if err != nil {
			continue // ended meanwhile
		}
		children[c.ppid] = append(children[c.ppid], pid)
	}
	return children, nil
}

// parsePss reads the Pss line of /proc/<pid>/smaps_rollup, in KiB.
func parsePss(text string) (uint64, error) {
	for line := range strings.Lines(text) {
		val, ok := strings.CutPrefix(line, "Pss:")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("smaps_rollup: Pss: unexpected %q", val)
		}
		return strconv.ParseUint(f[0], 10, 64)
	}
	return 0, errors.New("smaps_rollup: no Pss")
}

// readPss returns the proportional set size of process pid, 0 when it
// cannot be read (another user's process, a kernel without smaps_rollup).
func readPss(pid string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/smaps_rollup")
	if err != nil {
		return 0
	}
	n, _ := parsePss(string(b))
	return n
}
