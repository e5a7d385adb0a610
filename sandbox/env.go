package sandbox

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// defaultEnvAllow is the environment a child process sees unless the
// caller adds names: what a shell and ordinary build tools need to work,
// and nothing that usually carries a credential.
var defaultEnvAllow = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_COLLATE", "LC_NUMERIC", "LC_TIME",
	"TERM", "COLORTERM", "NO_COLOR", "TZ", "TMPDIR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "CGO_ENABLED",
	"CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "npm_config_cache", "PYTHONPATH", "VIRTUAL_ENV",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
}

// secretMarkers are the name fragments that mark a variable as a
// credential. A name containing any of them never reaches a child, even
// when a caller allowlisted it: an allowlist is typed by hand and a second,
// shape-based screen catches the slip.
var secretMarkers = []string{
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"AUTH", "COOKIE", "SESSION", "PRIVATE", "SIGNATURE", "CERT",
}

// EnvOptions adjusts [ChildEnv]. A nil *EnvOptions means the defaults.
type EnvOptions struct {
	// Allow adds variable names to the default allowlist. Names are
	// matched exactly. Empty means the default list only.
	Allow []string
	// Set is appended after screening, as NAME=value pairs, overriding any
	// inherited value of the same name (TMPDIR for a private temporary
	// directory, say). Entries are screened like inherited ones, so a
	// secret-shaped name is dropped here too.
	Set []string
}

// SecretName reports whether name looks like it holds a credential:
// *_KEY, *_TOKEN, *_SECRET, *PASSWORD* and the like, case-insensitively.
func SecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, m := range secretMarkers {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

var (
	urlUserinfoOnce sync.Once
	urlUserinfoVal  *regexp.Regexp
)

// urlUserinfo matches the userinfo part of a URL's authority, as in
// https://user:token@proxy.example: everything between "://" and the "@"
// before the host.
func urlUserinfo() *regexp.Regexp {
	urlUserinfoOnce.Do(func() { urlUserinfoVal = buildURLUserinfo() })
	return urlUserinfoVal
}

func buildURLUserinfo() *regexp.Regexp {
	return regexp.MustCompile(`://[^/?#@\s,|;]*@`)
}

var (
	leftoverUserinfoOnce sync.Once
	leftoverUserinfoVal  *regexp.Regexp
)

// leftoverUserinfo matches what still looks like credentials in a URL
// after [urlUserinfo] is stripped: a password holding a "/" that no URL
// parser would read as userinfo but a client may.
func leftoverUserinfo() *regexp.Regexp {
	leftoverUserinfoOnce.Do(func() { leftoverUserinfoVal = buildLeftoverUserinfo() })
	return leftoverUserinfoVal
}

func buildLeftoverUserinfo() *regexp.Regexp {
	return regexp.MustCompile(`://[^\s,|;@]*:[^\s,|;@]*@`)
}

// StripURLCredentials removes the userinfo (user:password@) from every
// URL in an environment value, and reports ok=false when what is left
// still looks like a credential, in which case the variable should not be
// passed at all. A value such as GOPROXY may hold several URLs.
func StripURLCredentials(val string) (stripped string, ok bool) {
	if !strings.Contains(val, "@") {
		return val, true
	}
	out := urlUserinfo().ReplaceAllString(val, "://")
	return out, !leftoverUserinfo().MatchString(out)
}

// ChildEnv builds the environment of a child process from parent (in
// os.Environ form): only allowlisted names pass, and of those, any whose
// name looks like a credential ([SecretName]) is dropped. A URL with
// credentials in a passing value (GOPROXY=https://user:token@proxy,
// HTTPS_PROXY=http://u:p@host) loses its user:password@ part, so the
// child reaches the same host without the secret; a value that still looks
// like it carries one after that is dropped ([StripURLCredentials]). The
// result is sorted by name so it is the same on every call. ChildEnv is
// safe for concurrent use.
func ChildEnv(parent []string, opts *EnvOptions) []string {
	allow := make(map[string]bool, len(defaultEnvAllow))
	for _, n := range defaultEnvAllow {
		allow[n] = true
	}
	var set []string
	if opts != nil {
		for _, n := range opts.Allow {
			allow[n] = true
		}
		set = opts.Set
	}
	vals := make(map[string]string)
	for _, kv := range parent {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !allow[name] || SecretName(name) {
			continue
		}
		if val, ok = StripURLCredentials(val); !ok {
			continue
		}
		vals[name] = val
	}
	for _, kv := range set {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" || SecretName(name) {
			continue
		}
		if val, ok = StripURLCredentials(val); !ok {
			continue
		}
		vals[name] = val
	}
	out := make([]string, 0, len(vals))
	for n, v := range vals {
		out = append(out, n+"="+v)
	}
	slices.Sort(out)
	return out
}
