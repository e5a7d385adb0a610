package onboard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/joshbot/joshbot/providers"
)

// offered are the providers the interactive onboarding offers: the
// ones that work with a key alone, plus a local Ollama.
func offered() []providers.Spec {
	var out []providers.Spec
	for _, s := range providers.Known() {
		if s.BaseURL != "" && s.DefaultModel != "" && (s.KeyEnv != "" || s.Keyless) {
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
				return fmt.Errorf("read the API key: %w", err)
			}
			f.APIKey = strings.TrimSpace(key)
			if f.APIKey == "" {
				fmt.Fprintf(out, "The key is empty: paste it, or press Ctrl-C and export %s instead.\n", spec.KeyEnv)
			}
		}
	}
	fmt.Fprintf(out, "Model [%s]: ", spec.DefaultModel)
	model, err := readAnswer(in)
	if err != nil {
		return err
	}
	f.Model = model
	return nil
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
