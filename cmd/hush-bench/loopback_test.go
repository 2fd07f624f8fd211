package main

import "testing"

func TestLoopbackURL(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:5100", "http://localhost:80/", "http://[::1]:5100"} {
		if _, err := checkLoopbackURL(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{
		"", "127.0.0.1:5100", "https://127.0.0.1:5100", "http://127.0.0.1",
		"http://10.0.0.1:5100", "http://example.com:80", "http://127.0.0.2:5100",
		"http://localhost.example.com:80", "http://0.0.0.0:5100", "http://[::]:5100",
		"http://user@127.0.0.1:5100", "http://127.0.0.1:5100/api", "http://127.0.0.1:5100/?x=1",
	} {
		if _, err := checkLoopbackURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "localhost:5200", "[::1]:5200"} {
		if err := checkLoopbackAddr(ok); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{":5200", "0.0.0.0:5200", "192.168.1.1:80", "127.0.0.1"} {
		if err := checkLoopbackAddr(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
