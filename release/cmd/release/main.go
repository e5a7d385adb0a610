// Command release releases joshbot's modules at the versions versions.yaml
// declares: it rewrites sibling require lines to those versions, opens a
// CHANGELOG heading per released module, commits, and tags each module
// (sandbox/v0.1.0). Modules whose declared version is tagged already are left
// alone. Push the tags afterwards with `git push origin --tags`.
//
// Usage, from the repository root:
//
//	go run ./release/cmd/release [-set sandbox=v0.2.0 ...] [-n]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/joshbot/joshbot/release"
)

type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var sets setFlags
	flag.Var(&sets, "set", "`set=version`: change a module set's version in versions.yaml first (repeatable)")
	dry := flag.Bool("n", false, "print what would change and write nothing")
	date := flag.String("date", "", "date for the CHANGELOG headings, YYYY-MM-DD (default: today, UTC)")
	flag.Parse()
	if err := run(sets, *dry, *date); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(sets []string, dry bool, date string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := release.FindRoot(wd)
	if err != nil {
		return err
	}
	d := time.Now().UTC()
	if date != "" {
		if d, err = time.Parse("2006-01-02", date); err != nil {
			return fmt.Errorf("-date %q: want YYYY-MM-DD", date)
		}
	}
	for _, s := range sets {
		name, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("-set %q: want set=version, e.g. sandbox=v0.2.0", s)
		}
		if dry {
			fmt.Printf("would set %s to %s in versions.yaml\n", name, v)
			continue
		}
		if err := release.SetVersion(filepath.Join(root, "versions.yaml"), name, v); err != nil {
			return err
		}
		if _, err := release.Git(root, "commit", "-q", "-m", "versions.yaml: "+name+" "+v, "--", "versions.yaml"); err != nil {
			return err
		}
	}
	tags, err := release.Release(root, release.ReleaseOptions{Date: d, DryRun: dry, Log: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }})
	if err != nil {
		return err
	}
	if len(tags) > 0 && !dry {
		fmt.Println("tagged:", strings.Join(tags, " "))
		fmt.Println("publish with: git push origin HEAD --tags")
	}
	return nil
}
