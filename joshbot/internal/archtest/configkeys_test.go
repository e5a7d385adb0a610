package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// configKey matches what one of joshbot's config keys looks like inside a
// text: a top-level section of config.json, a dot and a lower-case key
// (agents.defaults.model, tools.shell_allow, channels.telegram.token_env),
// or a key naming an environment variable (secret_env). The preceding
// character keeps host names (api.openai.com) and file names (.mcp.trust)
// out.
var configKey = regexp.MustCompile(`(?:^|[^\w./:-])((?:agents|tools|providers|channels|api|mcp|webhooks|models_config|embeddings|stt|tuning)\.(?:[a-z_]+|%[sqv])(?:\.(?:[a-z_\[\]0-9]+|%[sqvd]))*|[a-z]+_env)\b`)

// hostTLD marks a match that is a host name after all.
var hostTLD = regexp.MustCompile(`\.(com|ai|org|io|net|dev)$`)

// configKeysIn returns the config keys the text s names.
func configKeysIn(s string) []string {
	var out []string
	for _, m := range configKey.FindAllStringSubmatch(s, -1) {
		if !hostTLD.MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func TestConfigKeyPattern(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"set agents.defaults.model", true},
		{"(tools.shell_allow)", true},
		{"raise mcp.servers.h.call_timeout", true},
		{"channels.telegram.allow_from is empty", true},
		{"set secret_env to the variable", true},
		{"channels.%s.allow_from is empty", true},
		{"Bearer <one of api.api_keys>", true},
		{"https://api.openai.com/v1", false},
		{"api.github.com", false},
		{".mcp.trust-*", false},
		{"providers.Request", false},
		{"Options.APIURL must start with http://", false},
		{"LimitOptions.MaxIterations", false},
	} {
		if got := len(configKeysIn(tt.text)) > 0; got != tt.want {
			t.Errorf("configKeysIn(%q) = %v, want a key found: %v", tt.text, configKeysIn(tt.text), tt.want)
		}
	}
}

// TestLibrariesSpeakTheirOwnLanguage: no string in a library module's code
// names one of joshbot's config keys. A library's errors and texts name
// its own API (Policy.AllowNetwork, ScreenOptions.Allow,
// LongTermOptions.MaxBytes) or take the program's words through an option
// (agent.SettingNames, mcpclient.Options.CallTimeoutSetting,
// channels.RouterOptions.AllowFromSetting, apiserver.Setup); the binary
// translates. Comments and tests may mention keys.
func TestLibrariesSpeakTheirOwnLanguage(t *testing.T) {
	root := repoRoot(t)
	files := 0
	for m := range allowed {
		if m == "joshbot" || m == "bench" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, m), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, k := range configKeysIn(s) {
					rel, _ := filepath.Rel(root, p)
					t.Errorf("%s:%d names joshbot's config key %s; name the module's own API, or take the program's words through an option", rel, fset.Position(lit.Pos()).Line, k)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("read only %d files; is the walk broken?", files)
	}
}
