package app

import (
	"slices"
	"strings"
	"sync"
)

// settingsRead records the names of the settings a configuration read,
// so that serve can name the Password Pusher settings (PWP__…) that are
// set but that Hush does not read: a branding or mail setting carried
// over from a Password Pusher deployment must not be lost silently.
type settingsRead struct {
	getenv func(string) string
	mu     sync.Mutex
	names  map[string]bool
}

func newSettingsRead(getenv func(string) string) *settingsRead {
	return &settingsRead{getenv: getenv, names: map[string]bool{}}
}

// get is getenv, noting the name.
func (r *settingsRead) get(name string) string {
	r.mu.Lock()
	r.names[name] = true
	r.mu.Unlock()
	return r.getenv(name)
}

// unused returns, sorted, the PWP__ variables of environ (NAME=value
// entries) that were never read.
func (r *settingsRead) unused(environ []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "PWP__") && !r.names[name] && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
