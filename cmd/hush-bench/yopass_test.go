package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCRC24(t *testing.T) {
	// The CRC-24/OPENPGP check value, and the empty input (the initial value).
	for in, want := range map[string]uint32{"123456789": 0x21cf02, "": 0xb704ce} {
		if got := crc24([]byte(in)); got != want {
			t.Errorf("crc24(%q) = %06x, want %06x", in, got, want)
		}
	}
	if crc24([]byte("123456788")) == crc24([]byte("123456789")) {
		t.Error("crc24 misses a changed byte")
	}
}

// parseArmor checks text as a strict reader of RFC 4880's armor would (no
// headers, lines of at most 64 characters, the checksum line required and
// right) and returns the bytes it holds.
func parseArmor(text string) ([]byte, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 5 || lines[0] != "-----BEGIN PGP MESSAGE-----" || lines[1] != "" ||
		lines[len(lines)-1] != "-----END PGP MESSAGE-----" {
		return nil, fmt.Errorf("not a PGP MESSAGE block: %q", text)
	}
	sum := lines[len(lines)-2]
	body := lines[2 : len(lines)-2]
	var enc strings.Builder
	for i, l := range body {
		if len(l) == 0 || len(l) > 64 || (i < len(body)-1 && len(l) != 64) {
			return nil, fmt.Errorf("body line %d has %d characters", i, len(l))
		}
		enc.WriteString(l)
	}
	b, err := base64.StdEncoding.DecodeString(enc.String())
	if err != nil {
		return nil, err
	}
	if len(sum) != 5 || sum[0] != '=' {
		return nil, fmt.Errorf("checksum line %q", sum)
	}
	c, err := base64.StdEncoding.DecodeString(sum[1:])
	if err != nil || len(c) != 3 {
		return nil, fmt.Errorf("checksum %q: %v", sum, err)
	}
	if got := uint32(c[0])<<16 | uint32(c[1])<<8 | uint32(c[2]); got != crc24(b) {
		return nil, fmt.Errorf("checksum %06x, body's %06x", got, crc24(b))
	}
	return b, nil
}

// readPacket reads one new-format OpenPGP packet: its tag and body.
func readPacket(b []byte) (tag int, body, rest []byte, err error) {
	if len(b) < 2 || b[0]&0xc0 != 0xc0 {
		return 0, nil, nil, errors.New("not a new-format packet")
	}
	tag, b = int(b[0]&0x3f), b[1:]
	var n int
	switch {
	case b[0] < 192:
		n, b = int(b[0]), b[1:]
	case b[0] < 224 && len(b) >= 2:
		n, b = (int(b[0])-192)<<8+int(b[1])+192, b[2:]
	case b[0] == 255 && len(b) >= 5:
		n, b = int(b[1])<<24|int(b[2])<<16|int(b[3])<<8|int(b[4]), b[5:]
	default:
		return 0, nil, nil, errors.New("bad length")
	}
	if n > len(b) {
		return 0, nil, nil, fmt.Errorf("length %d, %d bytes left", n, len(b))
	}
	return tag, b[:n], b[n:], nil
}

func TestPGPMessage(t *testing.T) {
	prev := 0
	for _, n := range []int{1, 64, 100, 8000, 10000} {
		msg := pgpMessage(n)
		if msg != pgpMessage(n) {
			t.Fatalf("n=%d: not deterministic", n)
		}
		b, err := parseArmor(msg)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		tag, skesk, rest, err := readPacket(b)
		if err != nil || tag != 3 || len(skesk) != 13 || skesk[0] != 4 || skesk[1] != 9 || skesk[2] != 3 || skesk[3] != 8 {
			t.Fatalf("n=%d: first packet: tag %d, % x, %v", n, tag, skesk, err)
		}
		tag, seipd, rest, err := readPacket(rest)
		if err != nil || tag != 18 || seipd[0] != 1 || len(rest) != 0 {
			t.Fatalf("n=%d: second packet: tag %d, %d bytes, %d left, %v", n, tag, len(seipd), len(rest), err)
		}
		// Version, IV and check, the literal packet (header, 6 bytes, the data), the MDC.
		lit := 6 + n
		want := 1 + 18 + 1 + len(packetLength(lit)) + lit + 22
		if len(seipd) != want {
			t.Errorf("n=%d: encrypted packet of %d bytes, want %d", n, len(seipd), want)
		}
		if len(b) <= prev {
			t.Errorf("n=%d: %d bytes, no more than for a smaller n", n, len(b))
		}
		prev = len(b)
	}
	// What a Yopass client sends for 64 bytes: 130 bytes, 240 characters armored.
	if b, _ := parseArmor(pgpMessage(64)); len(b) != 130 || len(pgpMessage(64)) != 240 {
		t.Errorf("64 bytes: %d bytes, %d characters", len(b), len(pgpMessage(64)))
	}
	// The checker refuses what it should.
	good := pgpMessage(64)
	for _, bad := range []string{
		strings.Replace(good, "-----END PGP MESSAGE-----\n", "", 1),
		strings.Replace(good, "\n=", "\n=A", 1),
		strings.Replace(good, "ww0E", "ww1E", 1), // a changed body: the checksum no longer matches
		strings.Replace(good, "PGP MESSAGE", "PGP SIGNATURE", 1),
	} {
		if _, err := parseArmor(bad); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

func TestPacketLength(t *testing.T) {
	for n, want := range map[int][]byte{
		100: {100}, 191: {191}, 192: {192, 0}, 1723: {197, 251}, 8383: {223, 255},
		8384: {255, 0, 0, 0x20, 0xc0}, 100000: {255, 0, 1, 0x86, 0xa0},
	} {
		if got := packetLength(n); !bytes.Equal(got, want) {
			t.Errorf("packetLength(%d) = % x, want % x", n, got, want)
		}
	}
}

// fakeYopass answers Yopass's API as its server does for text secrets,
// with the same armor check: a "PGP MESSAGE" block whose body decodes to
// something, ending with its END line.
type fakeYopass struct {
	mu               sync.Mutex
	secrets          map[string]fakeSecret
	oneTime, lasting int
}

type fakeSecret struct {
	Expiration int32  `json:"expiration,omitempty"`
	Message    string `json:"message"`
	OneTime    bool   `json:"one_time,omitempty"`
}

func (f *fakeYopass) handler() http.Handler {
	mux := http.NewServeMux()
	fail := func(w http.ResponseWriter, code int, msg string) {
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{"message": msg})
	}
	mux.HandleFunc("GET /ready", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"status": "ready"})
	})
	mux.HandleFunc("POST /create/secret", func(w http.ResponseWriter, r *http.Request) {
		var s fakeSecret
		if err := json.NewDecoder(r.Body).Decode(&s); err != nil {
			fail(w, http.StatusBadRequest, "Unable to parse json")
			return
		}
		if s.Expiration != 3600 && s.Expiration != 86400 && s.Expiration != 604800 {
			fail(w, http.StatusBadRequest, "Invalid expiration specified")
			return
		}
		if _, err := parseArmor(s.Message); err != nil {
			fail(w, http.StatusBadRequest, "Message must be PGP encrypted")
			return
		}
		key := rand.Text()[:22]
		f.mu.Lock()
		f.secrets[key] = s
		if s.OneTime {
			f.oneTime++
		} else {
			f.lasting++
		}
		f.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"message": key})
	})
	mux.HandleFunc("GET /secret/{key}", func(w http.ResponseWriter, r *http.Request) {
		key := r.PathValue("key")
		f.mu.Lock()
		s, ok := f.secrets[key]
		if ok && s.OneTime {
			delete(f.secrets, key)
		}
		f.mu.Unlock()
		if !ok {
			fail(w, http.StatusNotFound, "Secret not found")
			return
		}
		json.NewEncoder(w).Encode(s)
	})
	return mux
}

// The scenarios in the Yopass dialect against the fake: every create is
// accepted, every retrieve finds the message; the cycle's secrets are
// one-time (and so gone), the retrieve scenario's are not.
func TestYopassDialectAgainstFake(t *testing.T) {
	f := &fakeYopass{secrets: map[string]fakeSecret{}}
	srv := httptest.NewServer(f.handler())
	defer srv.Close()
	for _, sc := range []string{"create", "cycle", "retrieve"} {
		t.Run(sc, func(t *testing.T) {
			f.mu.Lock()
			f.secrets, f.oneTime, f.lasting = map[string]fakeSecret{}, 0, 0
			f.mu.Unlock()
			res, err := run(context.Background(), runConfig{url: srv.URL, dialect: dialectYopass, scenario: sc,
				conns: 4, dur: 300 * time.Millisecond, warmup: 50 * time.Millisecond, payload: 64})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors != 0 || res.Dialect != dialectYopass {
				t.Fatalf("requests %d, errors %d (%s), dialect %q", res.Requests, res.Errors, res.FirstError, res.Dialect)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			switch sc {
			case "create":
				if f.lasting == 0 || f.oneTime != 0 || len(f.secrets) != f.lasting {
					t.Errorf("create: %d one-time, %d lasting, %d stored", f.oneTime, f.lasting, len(f.secrets))
				}
			case "cycle":
				// Every one-time secret read was deleted; a few may be in flight at the end.
				if f.oneTime == 0 || f.lasting != 0 || len(f.secrets) > 4 {
					t.Errorf("cycle: %d one-time, %d lasting, %d still stored", f.oneTime, f.lasting, len(f.secrets))
				}
			case "retrieve":
				if f.oneTime != 0 || f.lasting < retrievePushes || len(f.secrets) != f.lasting {
					t.Errorf("retrieve: %d one-time, %d lasting, %d stored", f.oneTime, f.lasting, len(f.secrets))
				}
			}
		})
	}
	_, err := run(context.Background(), runConfig{url: srv.URL, dialect: dialectYopass, scenario: "passphrase",
		conns: 1, dur: 100 * time.Millisecond, payload: 64})
	if err == nil || !strings.Contains(err.Error(), "passphrase") {
		t.Errorf("passphrase scenario in the Yopass dialect: %v", err)
	}
	if _, err := run(context.Background(), runConfig{url: srv.URL, dialect: "nope", scenario: "create",
		conns: 1, dur: 100 * time.Millisecond, payload: 64}); err == nil {
		t.Error("an unknown dialect was accepted")
	}
}

// The Yopass dialect against a real yopass-server on memcached and on
// Redis, started here on loopback. Set YOPASS_BIN to the yopass-server
// binary (docs/performance.md, "Building Yopass", says how to build it);
// memcached and redis-server must then be on PATH. Without YOPASS_BIN the
// test skips, whatever HUSH_REQUIRE_ALL says: Yopass is not part of the
// project, and CI does not build it.
func TestYopassEndToEnd(t *testing.T) {
	bin := os.Getenv("YOPASS_BIN")
	if bin == "" {
		t.Skip("YOPASS_BIN is not set: no yopass-server to test the Yopass dialect against (docs/performance.md, Building Yopass)")
	}
	for _, store := range []string{"memcached", "redis"} {
		t.Run(store, func(t *testing.T) {
			storePort, yoPort := freeTestPort(t), freeTestPort(t)
			args := []string{"--address", "127.0.0.1", "--port", strconv.Itoa(yoPort), "--database", store, "--log-level", "warn"}
			var storeCmd *exec.Cmd
			if store == "memcached" {
				storeArgs := []string{"-l", "127.0.0.1", "-p", strconv.Itoa(storePort), "-U", "0"}
				if os.Geteuid() == 0 {
					storeArgs = append(storeArgs, "-u", "nobody")
				}
				storeCmd = startProcess(t, "memcached", storeArgs...)
				args = append(args, "--memcached", "127.0.0.1:"+strconv.Itoa(storePort))
			} else {
				storeCmd = startProcess(t, "redis-server", "--bind", "127.0.0.1", "--port", strconv.Itoa(storePort),
					"--save", "", "--appendonly", "no", "--dir", t.TempDir())
				args = append(args, "--redis", "redis://127.0.0.1:"+strconv.Itoa(storePort)+"/0")
			}
			yo := startProcess(t, bin, args...)
			url := "http://127.0.0.1:" + strconv.Itoa(yoPort)

			for _, sc := range []string{"create", "cycle", "retrieve"} {
				res, err := run(context.Background(), runConfig{url: url, dialect: dialectYopass, scenario: sc, conns: 4,
					dur: 300 * time.Millisecond, warmup: 50 * time.Millisecond, payload: 64,
					pids: []int{yo.Process.Pid, storeCmd.Process.Pid}})
				if err != nil {
					t.Fatalf("%s: %v", sc, err)
				}
				if res.Requests == 0 || res.Errors != 0 || res.ServerProcesses < 2 || res.ServerCPUPerReq <= 0 {
					t.Fatalf("%s: requests %d, errors %d (%s), %d processes, %.1f µs/req",
						sc, res.Requests, res.Errors, res.FirstError, res.ServerProcesses, res.ServerCPUPerReq)
				}
			}

			c := newClient([]string{url}, 1, 64, dialectYopass)
			ctx := context.Background()
			var buf bytes.Buffer
			once, err := c.create(ctx, c.createBody(1), &buf)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.retrieve(ctx, once, &buf); err != nil || !strings.Contains(buf.String(), `"one_time":true`) {
				t.Fatalf("one-time secret: %v %s", err, buf.String())
			}
			if status, err := c.do(ctx, http.MethodGet, "/secret/"+once, nil, &buf); err != nil || status != http.StatusNotFound {
				t.Errorf("one-time secret read twice: %d %v %s", status, err, buf.String())
			}
			lasting, err := c.create(ctx, c.createBody(5), &buf)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if err := c.retrieve(ctx, lasting, &buf); err != nil {
					t.Fatalf("lasting secret, read %d: %v", i+1, err)
				}
			}
			// The server checks the armor: without its END line the same message is refused.
			cut := strings.Replace(string(c.createBody(1)), `-----END PGP MESSAGE-----\n`, "", 1)
			if status, err := c.do(ctx, http.MethodPost, "/create/secret", []byte(cut), &buf); err != nil ||
				status != http.StatusBadRequest || !strings.Contains(buf.String(), "PGP") {
				t.Errorf("a message without its END line: %d %v %s", status, err, buf.String())
			}
		})
	}
}

func freeTestPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startProcess starts a server for the test and stops it at the end.
func startProcess(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s: %v (YOPASS_BIN is set, so the test needs it)", name, err)
	}
	cmd := exec.Command(path, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	return cmd
}
