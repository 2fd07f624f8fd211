package httpx

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, c := range []struct {
		name, remote, xff string
		trusted           []netip.Prefix
		want              string
	}{
		{"no proxies: the peer", "203.0.113.7:5555", "", nil, "203.0.113.7"},
		{"untrusted peer: XFF ignored", "203.0.113.7:5555", "198.51.100.1", proxies, "203.0.113.7"},
		{"trusted peer: the client it forwarded", "10.1.2.3:80", "198.51.100.1", proxies, "198.51.100.1"},
		{"spoofed left-most hop is skipped", "10.1.2.3:80", "6.6.6.6, 198.51.100.1, 10.9.9.9", proxies, "198.51.100.1"},
		{"only proxies: the left-most proxy", "10.1.2.3:80", "10.2.2.2", proxies, "10.2.2.2"},
		{"garbage hop stops the walk", "10.1.2.3:80", "198.51.100.1, nonsense", proxies, "10.1.2.3"},
		{"IPv4-mapped IPv6 is unmapped", "[::ffff:192.0.2.1]:1", "", nil, "192.0.2.1"},
		{"IPv6 proxy", "[::1]:1", "2001:db8::1", proxies, "2001:db8::1"},
		{"no port", "192.0.2.9", "", nil, "192.0.2.9"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := ClientIP(r, c.trusted); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestOrigin(t *testing.T) {
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}
	cases := []struct {
		name, remote, base, proto, host, want string
	}{
		{"base URL wins", "10.0.0.1:1", "https://secrets.example", "http", "evil.example", "https://secrets.example"},
		{"request host", "192.0.2.1:1", "", "", "", "http://hush.test"},
		{"trusted proxy forwards", "10.0.0.1:1", "", "https", "public.example", "https://public.example"},
		{"untrusted forwarding ignored", "192.0.2.1:1", "", "https", "evil.example", "http://hush.test"},
		{"odd forwarded host ignored", "10.0.0.1:1", "", "ftp", "a/b", "http://hush.test"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "http://hush.test/", nil)
		r.RemoteAddr = c.remote
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.host != "" {
			r.Header.Set("X-Forwarded-Host", c.host)
		}
		if got := Origin(r, c.base, proxy); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
