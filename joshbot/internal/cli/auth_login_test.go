package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/joshbot/joshbot/joshbot/internal/config"
)

func TestAuthLoginStoresToken(t *testing.T) {
	clearProviderEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login/device/code":
			fmt.Fprint(w, `{"device_code":"dev-1","user_code":"ABCD-1234","verification_uri":"https://github.com/login/device","expires_in":900,"interval":5}`)
		case "/login/oauth/access_token":
			fmt.Fprint(w, `{"access_token":"gho_testtoken0123456789","token_type":"bearer"}`)
		default:
			http.NotFound(w, r)
		}
	}))
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
