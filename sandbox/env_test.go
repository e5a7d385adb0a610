package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestChildEnv(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm",
		"OPENAI_API_KEY=sk-parent-secret", "GITHUB_TOKEN=ghp_parentsecret", "AWS_SECRET_ACCESS_KEY=abc",
		"DB_PASSWORD=hunter2", "RANDOM_THING=1", "MALFORMED", "=x",
	}
	for _, tt := range []struct {
		name string
		opts *EnvOptions
		want []string
	}{
		{"defaults", nil, []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "TERM=xterm"}},
		{"extra allowed name", &EnvOptions{Allow: []string{"RANDOM_THING"}}, []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "RANDOM_THING=1", "TERM=xterm"}},
		{"allowlisting a secret does not let it through", &EnvOptions{Allow: []string{"OPENAI_API_KEY", "DB_PASSWORD"}}, []string{"HOME=/home/u", "LANG=C.UTF-8", "PATH=/usr/bin", "TERM=xterm"}},
		{"set overrides and is screened", &EnvOptions{Set: []string{"TMPDIR=/t", "HOME=/ws", "MY_TOKEN=x"}}, []string{"HOME=/ws", "LANG=C.UTF-8", "PATH=/usr/bin", "TERM=xterm", "TMPDIR=/t"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ChildEnv(parent, tt.opts)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("ChildEnv:\n got %q\nwant %q", got, tt.want)
			}
			for _, kv := range got {
				if strings.Contains(kv, "secret") || strings.Contains(kv, "hunter2") {
					t.Fatalf("secret leaked: %q", kv)
				}
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"OPENAI_API_KEY", true}, {"GITHUB_TOKEN", true}, {"client_secret", true}, {"MYSQL_PASSWORD", true},
		{"PGPASSWORD", true}, {"AWS_SESSION_TOKEN", true}, {"SSH_AUTH_SOCK", true},
		{"PATH", false}, {"HOME", false}, {"LANG", false}, {"GOFLAGS", false},
	} {
		if got := SecretName(tt.name); got != tt.want {
			t.Errorf("SecretName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestChildEnvURLCredentials: a URL with user:password@ in an allowlisted
// variable reaches the child without the credentials (issue 18: a
// GOPROXY=https://user:token@... passed the allowlist).
func TestChildEnvURLCredentials(t *testing.T) {
	parent := []string{
		"GOPROXY=https://user:tok3n-s3cret@proxy.example/go,https://proxy.golang.org,direct",
		"HTTPS_PROXY=http://alice:pr0xy-s3cret@10.0.0.1:3128",
		"https_proxy=http://bob@10.0.0.2:3128",
		"NODE_PATH=https://npm.example/@scope/pkg",
		"PYTHONPATH=https://u:we/ird-s3cret@host/x",
		"PATH=/usr/bin",
	}
	got := ChildEnv(parent, &EnvOptions{
		Allow: []string{"HTTPS_PROXY", "https_proxy", "PYTHONPATH"},
		Set:   []string{"GOFLAGS=-modcacherw", "XDG_CACHE_HOME=ftp://carol:set-s3cret@cache"},
	})
	want := []string{
		"GOFLAGS=-modcacherw",
		"GOPROXY=https://proxy.example/go,https://proxy.golang.org,direct",
		"HTTPS_PROXY=http://10.0.0.1:3128",
		"NODE_PATH=https://npm.example/@scope/pkg",
		"PATH=/usr/bin",
		"XDG_CACHE_HOME=ftp://cache",
		"https_proxy=http://10.0.0.2:3128",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ChildEnv:\n got %q\nwant %q", got, want)
	}
	for _, kv := range got {
		if strings.Contains(kv, "s3cret") || strings.Contains(kv, "bob@") {
			t.Fatalf("credential passed: %q", kv)
		}
	}
}
