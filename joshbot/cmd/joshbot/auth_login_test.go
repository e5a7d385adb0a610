package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

// fakeGitHub answers the two device-flow endpoints with a script of poll
// answers.
type fakeGitHub struct {
	mu    sync.Mutex
	polls []string // the error of each poll; "" answers with the token
	seen  int
	forms []string
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forms = append(f.forms, r.URL.Path+"?"+r.PostForm.Encode())
	if r.Header.Get("Accept") != "application/json" {
		http.Error(w, "want JSON", 406)
		return
	}
	switch r.URL.Path {
	case "/login/device/code":
		fmt.Fprint(w, `{"device_code":"dev-1","user_code":"ABCD-1234","verification_uri":"https://github.com/login/device","expires_in":900,"interval":5}`)
	case "/login/oauth/access_token":
		if r.PostForm.Get("device_code") != "dev-1" || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" {
			http.Error(w, "bad poll", 400)
			return
		}
		answer := "access_denied"
		if f.seen < len(f.polls) {
			answer = f.polls[f.seen]
		}
		f.seen++
		if answer == "" {
			fmt.Fprint(w, `{"access_token":"gho_testtoken0123456789","token_type":"bearer"}`)
			return
		}
		fmt.Fprintf(w, `{"error":%q}`, answer)
	default:
		http.NotFound(w, r)
	}
}

func TestDeviceFlow(t *testing.T) {
	for _, tt := range []struct {
		name      string
		polls     []string
		wantErr   string
		wantWaits []time.Duration
	}{
		{name: "approved after pending and slow_down", polls: []string{"authorization_pending", "slow_down", ""},
			wantWaits: []time.Duration{5 * time.Second, 5 * time.Second, 10 * time.Second}},
		{name: "declined", polls: []string{"access_denied"}, wantErr: "declined", wantWaits: []time.Duration{5 * time.Second}},
		{name: "expired", polls: []string{"expired_token"}, wantErr: "expired", wantWaits: []time.Duration{5 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gh := &fakeGitHub{polls: tt.polls}
			srv := httptest.NewServer(gh)
			defer srv.Close()
			var waits []time.Duration
			flow := &deviceFlow{client: srv.Client(), base: srv.URL, clientID: "cid", scope: "read:user",
				sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			var out strings.Builder
			tok, err := flow.login(context.Background(), &out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v", err)
				}
			} else if err != nil || tok != "gho_testtoken0123456789" {
				t.Fatalf("token %q err %v", tok, err)
			}
			if fmt.Sprint(waits) != fmt.Sprint(tt.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tt.wantWaits)
			}
			if !strings.Contains(out.String(), "ABCD-1234") || !strings.Contains(out.String(), "https://github.com/login/device") {
				t.Fatalf("code not shown: %s", out.String())
			}
		})
	}
}

func TestAuthLoginStoresToken(t *testing.T) {
	clearProviderEnv(t)
	gh := &fakeGitHub{polls: []string{""}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	cfgPath := filepath.Join(t.TempDir(), "config.json")
	var out, errb strings.Builder
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		sleep: func(context.Context, time.Duration) error { return nil }}
	root := a.rootCommand()
	root.SetArgs([]string{"--config", cfgPath, "auth", "login", "github-copilot", "--github-url", srv.URL})
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Providers["github_copilot"].APIKey != "gho_testtoken0123456789" {
		t.Fatalf("token not stored: %+v", cfg.Providers["github_copilot"])
	}
	fi, _ := os.Stat(cfgPath)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	if strings.Contains(out.String(), "gho_testtoken") {
		t.Fatalf("token printed: %s", out.String())
	}
	// auth status now reports it present, without showing it.
	r := runCLI(t, "", "--config", cfgPath, "auth", "status")
	if !strings.Contains(r.stdout, "github_copilot") || !strings.Contains(r.stdout, "present") || strings.Contains(r.stdout, "gho_") {
		t.Fatalf("auth status:\n%s", r.stdout)
	}
}
