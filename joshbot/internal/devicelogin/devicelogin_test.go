package devicelogin

import (
	"context"
	"fmt"
	"io"
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
		http.Error(w, "want JSON", http.StatusNotAcceptable)
		return
	}
	switch r.URL.Path {
	case "/login/device/code":
		fmt.Fprint(w, `{"device_code":"dev-1","user_code":"ABCD-1234","verification_uri":"https://github.com/login/device","expires_in":900,"interval":5}`)
	case "/login/oauth/access_token":
		if r.PostForm.Get("device_code") != "dev-1" || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code" {
			http.Error(w, "bad poll", http.StatusBadRequest)
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
			opts := &Options{HTTPClient: srv.Client(), GitHubURL: srv.URL, ClientID: "cid",
				Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}
			var out strings.Builder
			tok, err := Login(context.Background(), &out, opts)
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

// TestLoginSendsClientAndScope: the device-code request names the client
// and scope, and the defaults are Copilot's.
func TestLoginSendsClientAndScope(t *testing.T) {
	gh := &fakeGitHub{polls: []string{""}}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	noWait := func(context.Context, time.Duration) error { return nil }
	if _, err := Login(context.Background(), io.Discard, &Options{GitHubURL: srv.URL + "/", Sleep: noWait}); err != nil {
		t.Fatal(err)
	}
	if want := "/login/device/code?client_id=" + CopilotClientID + "&scope=read%3Auser"; gh.forms[0] != want {
		t.Fatalf("first request %q, want %q", gh.forms[0], want)
	}
}

// TestLoginExpiresWhileWaiting: a wait cut short (the code's lifetime
// ended) is reported as an expired code.
func TestLoginExpiresWhileWaiting(t *testing.T) {
	gh := &fakeGitHub{}
	srv := httptest.NewServer(gh)
	defer srv.Close()
	_, err := Login(context.Background(), io.Discard, &Options{GitHubURL: srv.URL,
		Sleep: func(ctx context.Context, _ time.Duration) error { return context.DeadlineExceeded }})
	if err == nil || !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "joshbot auth login github-copilot") {
		t.Fatalf("err = %v", err)
	}
}

func TestStoreCopilotToken(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.json")
	// No config yet: one is created with the token.
	if err := StoreCopilotToken(cfgPath, "gho_first"); err != nil {
		t.Fatal(err)
	}
	// An existing config keeps its settings; an api_key_env gives way.
	cfg, err := config.Inspect(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents.Defaults.Model = "kept-model"
	p := cfg.Providers["github_copilot"]
	p.APIKeyEnv = "OLD_ENV"
	cfg.Providers["github_copilot"] = p
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}
	if err := StoreCopilotToken(cfgPath, "gho_second"); err != nil {
		t.Fatal(err)
	}
	cfg, err = config.Inspect(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Providers["github_copilot"]; got.APIKey != "gho_second" || got.APIKeyEnv != "" || cfg.Agents.Defaults.Model != "kept-model" {
		t.Fatalf("stored %+v, model %q", got, cfg.Agents.Defaults.Model)
	}
	fi, _ := os.Stat(cfgPath)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	if err := os.WriteFile(cfgPath, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := StoreCopilotToken(cfgPath, "gho_third"); err == nil {
		t.Fatal("a broken config was overwritten")
	}
}

// TestCopilotCredential: only a GitHub token for github_copilot is
// exchanged, at Options.CopilotTokenURL.
func TestCopilotCredential(t *testing.T) {
	exchange := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "token gho_fromdeviceflow" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"token":"tid=copilot-session","expires_at":%d}`, time.Now().Add(time.Hour).Unix())
	}))
	defer exchange.Close()
	for _, tt := range []struct{ provider, key string }{
		{"openai", "gho_x"},
		{"github_copilot", "tid=already-a-session"},
	} {
		if CopilotCredential(tt.provider, tt.key, nil) != nil {
			t.Errorf("%s %s: exchanged", tt.provider, tt.key)
		}
	}
	cred := CopilotCredential("github_copilot", "gho_fromdeviceflow", &Options{CopilotTokenURL: exchange.URL})
	if cred == nil {
		t.Fatal("a GitHub token is not exchanged")
	}
	tok, err := cred(context.Background())
	if err != nil || tok != "tid=copilot-session" {
		t.Fatalf("token %q, %v", tok, err)
	}
}

// TestCopilotCredentialNamesTheLoginCommand: the providers module words a
// refused token exchange in its own API; joshbot's user reads the command
// that renews the token.
func TestCopilotCredentialNamesTheLoginCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad credentials", http.StatusUnauthorized)
	}))
	defer srv.Close()
	tok := CopilotCredential("github_copilot", "gho_revoked", &Options{CopilotTokenURL: srv.URL})
	if tok == nil {
		t.Fatal("no credential for a GitHub OAuth token")
	}
	_, err := tok(context.Background())
	if err == nil || !strings.Contains(err.Error(), "run `joshbot auth login github-copilot` again") || strings.Contains(err.Error(), "CopilotTokens") {
		t.Fatalf("err = %v", err)
	}
}
