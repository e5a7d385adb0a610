package onboard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/joshbot/joshbot/providers"
)

// offered are the providers the interactive onboarding offers: the
// ones that work with a key alone, then the servers that need no key
// (Ollama, LiteLLM, any OpenAI-compatible server), whose base URL is
// asked for and checked.
func offered() []providers.Spec {
	var out []providers.Spec
	for _, s := range providers.Known() {
		if s.Keyless || (s.BaseURL != "" && s.DefaultModel != "" && s.KeyEnv != "") {
			out = append(out, s)
		}
	}
	return out
}

// Ask fills f by asking the person at the terminal: which provider, its
// key (read by readSecret, which must not echo) unless its variable is
// already exported, and the model. Blank answers take the offered
// default.
func Ask(in *bufio.Reader, out io.Writer, readSecret func() (string, error), f *Choices) error {
	choices := offered()
	if len(choices) == 0 {
		return errors.New("no providers are built in")
	}
	def := 0
	for i, s := range choices {
		if s.KeyEnv != "" && strings.TrimSpace(os.Getenv(s.KeyEnv)) != "" {
			def = i
			break
		}
	}
	fmt.Fprintln(out, "Which LLM provider?")
	for i, s := range choices {
		note := ""
		if s.KeyEnv != "" && os.Getenv(s.KeyEnv) != "" {
			note = "  ($" + s.KeyEnv + " is set)"
		}
		fmt.Fprintf(out, "  %2d. %s%s\n", i+1, s.Name, note)
	}
	var spec providers.Spec
	for spec.Name == "" {
		fmt.Fprintf(out, "Provider [%s]: ", choices[def].Name)
		ans, err := readAnswer(in)
		if err != nil {
			return err
		}
		switch n, nerr := strconv.Atoi(ans); {
		case ans == "":
			spec = choices[def]
		case nerr == nil && n >= 1 && n <= len(choices):
			spec = choices[n-1]
		default:
			for _, s := range choices {
				if strings.EqualFold(s.Name, ans) {
					spec = s
				}
			}
			if spec.Name == "" {
				fmt.Fprintf(out, "%q is not in the list: type its number or name.\n", ans)
			}
		}
	}
	f.Provider = spec.Name
	if spec.KeyEnv != "" && !spec.Keyless && strings.TrimSpace(os.Getenv(spec.KeyEnv)) == "" {
		for f.APIKey == "" {
			fmt.Fprintf(out, "API key for %s (not shown as you type; it is saved in the config file, mode 0600): ", spec.Name)
			key, err := readSecret()
			fmt.Fprintln(out)
			if err != nil {
				return errorf("read the API key: %w", err)
			}
			f.APIKey = strings.TrimSpace(key)
			if f.APIKey == "" {
				fmt.Fprintf(out, "The key is empty: paste it, or press Ctrl-C and export %s instead.\n", spec.KeyEnv)
			}
		}
	}
	suggested := spec.DefaultModel
	if spec.Keyless {
		base, models, err := askBaseURL(in, out, spec)
		if err != nil {
			return err
		}
		f.APIBase = base
		if suggested == "" && len(models) > 0 {
			suggested = models[0]
		}
	}
	for {
		if suggested != "" {
			fmt.Fprintf(out, "Model [%s]: ", suggested)
		} else {
			fmt.Fprint(out, "Model id: ")
		}
		model, err := readAnswer(in)
		if err != nil {
			return err
		}
		if model == "" && suggested == "" {
			fmt.Fprintln(out, "A model id is needed: type the id the server serves.")
			continue
		}
		if model == "" && spec.DefaultModel == "" {
			// The listed model, which NewConfig cannot know.
			model = suggested
		}
		f.Model = model
		return nil
	}
}

// askBaseURL asks for the OpenAI-compatible base URL of a server that
// needs no key (spec.BaseURL is the default) until one answers
// GET <base>/models, and returns it with the model ids it lists.
func askBaseURL(in *bufio.Reader, out io.Writer, spec providers.Spec) (string, []string, error) {
	for {
		if spec.BaseURL != "" {
			fmt.Fprintf(out, "Base URL of %s [%s]: ", spec.Name, spec.BaseURL)
		} else {
			fmt.Fprint(out, "Base URL of the OpenAI-compatible server (e.g. http://localhost:8080/v1): ")
		}
		base, err := readAnswer(in)
		if err != nil {
			return "", nil, err
		}
		if base == "" {
			base = spec.BaseURL
		}
		if base == "" {
			fmt.Fprintln(out, "A base URL is needed: the address the server's /v1 API answers on.")
			continue
		}
		base = strings.TrimRight(base, "/")
		models, err := ListModels(context.Background(), base)
		if err != nil {
			fmt.Fprintf(out, "%v\nCheck the base URL (the server's OpenAI-compatible root, usually ending in /v1) and that the server is running, then type it again.\n", err)
			continue
		}
		return base, models, nil
	}
}

// ListModels sends one GET <base>/models to an OpenAI-compatible server
// and returns the model ids it lists; the error names the URL and what
// came back.
func ListModels(ctx context.Context, base string) ([]string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errorf("%q is not a base URL: it must start with http:// or https:// and name a host", base)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	target := strings.TrimRight(base, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, errorf("GET %s: %w", target, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, errorf("GET %s failed: %w", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errorf("GET %s answered %s, not the model list", target, resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&list); err != nil {
		return nil, errorf("GET %s did not answer an OpenAI model list: %w", target, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

func readAnswer(in *bufio.Reader) (string, error) {
	line, err := in.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		if errors.Is(err, io.EOF) {
			return "", errors.New("onboarding: input ended before the questions were answered (pass --provider and friends to onboard without questions)")
		}
		return "", err
	}
	return strings.TrimSpace(line), nil
}

// ReadSecretFrom returns a reader of one line from the terminal f that
// does not echo it, for [Ask].
func ReadSecretFrom(f *os.File) func() (string, error) {
	return func() (string, error) {
		b, err := term.ReadPassword(int(f.Fd()))
		return string(b), err
	}
}
