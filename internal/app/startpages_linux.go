package app

import (
	"bufio"
	"debug/elf"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseStartPages takes the executable's read-only pages out of the
// process's resident set once start-up is done, and returns how many bytes
// it released. Starting touches a page or two of almost every package
// (its init, its types, its tables), and the kernel maps the cached pages
// around each one it faults in, so a server at rest counted most of its
// 40 MB executable as resident though it runs a small part of it
// (docs/decisions.md, D55). The pages stay in the page cache: what runs
// next maps them back without reading the disk.
//
// Only the segments the ELF headers declare neither writable nor
// relocated are released (a dropped page of those comes back as the file
// has it, which for these is what the process had), and only in a
// position-dependent executable, whose segments sit at the addresses the
// headers give. A process under a debugger keeps its pages: a breakpoint
// is a private change to a page of code.
func releaseStartPages() int64 {
	if traced() {
		return 0
	}
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		return 0
	}
	defer f.Close()
	var released int64
	for _, r := range readOnlyRanges(f) {
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(r.start), uintptr(r.end-r.start), unix.MADV_DONTNEED); e == 0 {
			released += int64(r.end - r.start)
		}
	}
	return released
}

// span is a page-aligned address range [start, end).
type span struct{ start, end uint64 }

// readOnlyRanges returns the page-aligned ranges of f's loadable segments
// that are never written: not writable, and outside the range the dynamic
// linker relocates before making it read-only (PT_GNU_RELRO). None unless
// f is a position-dependent executable (ET_EXEC).
func readOnlyRanges(f *elf.File) []span {
	if f.Type != elf.ET_EXEC {
		return nil
	}
	page := uint64(os.Getpagesize())
	var relro []span
	for _, p := range f.Progs {
		if p.Type == elf.PT_GNU_RELRO {
			relro = append(relro, span{p.Vaddr &^ (page - 1), (p.Vaddr + p.Memsz + page - 1) &^ (page - 1)})
		}
	}
	var out []span
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_W != 0 {
			continue
		}
		s := span{(p.Vaddr + page - 1) &^ (page - 1), (p.Vaddr + p.Memsz) &^ (page - 1)}
		if s.end <= s.start || overlapsAny(s, relro) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func overlapsAny(s span, list []span) bool {
	for _, o := range list {
		if s.start < o.end && o.start < s.end {
			return true
		}
	}
	return false
}

// traced reports whether a debugger or tracer is attached to the process.
func traced() bool {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "TracerPid:"); ok {
			return strings.TrimSpace(v) != "0"
		}
	}
	return true
}
