package channels

import "strings"

// HostAllowed reports whether host is one of suffixes or a subdomain of
// one, matched on a dot boundary and without regard to case or a trailing
// dot: "api.botframework.com" matches ".botframework.com" and
// "botframework.com", "evil-botframework.com" matches neither. Use it
// before sending a privileged credential to a host named by a message.
func HostAllowed(host string, suffixes ...string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	for _, s := range suffixes {
		s = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(s), "."), ".")
		if s == "" {
			continue
		}
		if host == s || strings.HasSuffix(host, "."+s) {
			return true
		}
	}
	return false
}
