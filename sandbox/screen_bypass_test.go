package sandbox

import (
	"errors"
	"slices"
	"testing"
)

// TestScreenBypasses holds the screen bypasses of issue 18 (with the
// sandbox off, sort's abbreviated --compress-program ran code, attached
// option values and /dev/fd/.. redirections wrote and read outside the
// workspace) and more of the same families. Every row here was admitted by
// the hand-lexer screen this parser-based one replaced.
func TestScreenBypasses(t *testing.T) {
	withWrappers := slices.Concat(DefaultAllow, []string{"env", "nice", "timeout", "xargs", "sh", "bash"})
	for _, tt := range []struct {
		family string
		mode   ScreenMode
		cmd    string
	}{
		// The issue's own cases.
		{"abbreviation", ScreenAllowlist, "sort -S 1 --compress-prog=sh data.txt"},
		{"attached", ScreenAllowlist, "sort -o/outside/path data.txt"},
		{"devfd", ScreenAllowlist, "echo x > /dev/fd/../../../outside/path"},
		{"attached", ScreenAllowlist, "file -f/etc/passwd"},
		{"attached", ScreenAllowlist, "date -f/etc/shadow"},
		{"attached", ScreenAllowlist, "file -m/etc/shadow README.md"},

		// GNU long-option abbreviations.
		{"abbreviation", ScreenAllowlist, "sort --compress-prog sh data.txt"},
		{"abbreviation", ScreenAllowlist, "sort --comp=sh data.txt"},
		{"abbreviation", ScreenAllowlist, "sort --compr sh data.txt"},
		{"abbreviation", ScreenDenylist, "sort -S 1 --compress-prog=sh data.txt"},
		{"abbreviation", ScreenAllowlist, "sort --c=sh data.txt"},
		{"abbreviation", ScreenDenylist, "sort --o=/outside/x data.txt"},
		{"abbreviation", ScreenAllowlist, "date --se=2020-01-01"},
		{"abbreviation", ScreenAllowlist, "file --comp -m magic"},
		{"abbreviation", ScreenAllowlist, "rg --hostname-bin=sh foo"},
		{"abbreviation", ScreenAllowlist, "sort --bogus data.txt"},

		// Attached short-option values, alone and in clusters.
		{"attached", ScreenAllowlist, "sort -uo/outside/path data.txt"},
		{"attached", ScreenAllowlist, "sort -fo/outside/path data.txt"},
		{"attached", ScreenDenylist, "sort -o/outside/path data.txt"},
		{"attached", ScreenAllowlist, "sort -T/outside data.txt"},
		{"attached", ScreenAllowlist, "file -bf/etc/passwd"},
		{"attached", ScreenAllowlist, "file -m x:/etc/shadow README.md"},
		{"attached", ScreenAllowlist, "file --magic-file=x:/etc/shadow README.md"},
		{"attached", ScreenAllowlist, "date -r/etc/shadow"},
		{"attached", ScreenAllowlist, "date -uf/etc/shadow"},
		{"attached", ScreenAllowlist, "grep -f/etc/shadow notes.txt"},
		{"attached", ScreenAllowlist, "grep -rf/etc/shadow ."},
		{"attached", ScreenAllowlist, "du -X/etc/shadow ."},
		{"attached", ScreenAllowlist, "diff -X/etc/shadow a.txt b.txt"},
		{"operand", ScreenAllowlist, "date 010100002020"},

		// /dev/fd and /proc/self/fd resolved lexically.
		{"devfd", ScreenDenylist, "echo x > /dev/fd/../../../outside/path"},
		{"devfd", ScreenAllowlist, "echo x >> /dev/fd/1/../../../../etc/x"},
		{"devfd", ScreenAllowlist, "sort -o/dev/fd/../../etc/x data.txt"},
		{"devfd", ScreenAllowlist, "echo x 3>/dev/fd/../../../tmp/x"},
		{"devfd", ScreenDenylist, "echo x &>/dev/fd/../../../tmp/x"},
		{"devfd", ScreenDenylist, "exec 3>/dev/fd/../../../outside/x"},

		// Wrappers the allowlist admits: what they run is judged too.
		{"wrapper", ScreenAllowlist, "env sort --compress-prog=sh data.txt"},
		{"wrapper", ScreenAllowlist, "nice -n 5 sort -o/outside/x data.txt"},
		{"wrapper", ScreenAllowlist, "timeout 5 date -f/etc/shadow"},
		{"wrapper", ScreenAllowlist, "xargs sort"},
		{"wrapper", ScreenDenylist, "env --sp='sh -c id'"},
		{"wrapper", ScreenAllowlist, "sh script.sh"},

		// Command substitutions and here-documents are screened.
		{"substitution", ScreenDenylist, "echo $(sort --compress-prog=sh x)"},
		{"substitution", ScreenDenylist, "echo $(sort -o/outside/x data.txt)"},
		{"substitution", ScreenDenylist, "echo \"$(sort -o/outside/x y)\""},
		{"substitution", ScreenDenylist, "x=$(sort --comp=sh y)"},
		{"heredoc", ScreenDenylist, "cat <<EOF\n$(sort --comp=sh x)\nEOF"},
		{"heredoc", ScreenDenylist, "cat <<EOF > out.txt\n$(sudo id)\nEOF"},

		// Quoting: judged after quote removal.
		{"quoting", ScreenAllowlist, "sort -o'/outside/x' data.txt"},
		{"quoting", ScreenAllowlist, "sort \"--compress-prog=sh\" data.txt"},
		{"quoting", ScreenAllowlist, "sort --compress-prog=s''h data.txt"},
		{"quoting", ScreenAllowlist, "sort --compres\\s-pro=sh data.txt"},
		{"quoting", ScreenAllowlist, "date -f\"/etc/shadow\""},
		{"quoting", ScreenDenylist, "sort $'--compress-prog=sh' data.txt"},
		{"quoting", ScreenDenylist, "sort -o$'/outside/x' data.txt"},

		// Brace expansion.
		{"braces", ScreenAllowlist, "sort {-o,/outside/x} data.txt"},
		{"braces", ScreenAllowlist, "sort --{compress-prog,x}=sh data.txt"},
		{"braces", ScreenAllowlist, "date -{f,u}/etc/shadow"},
		{"braces", ScreenAllowlist, "cat {/etc/shadow,README.md}"},
		{"braces", ScreenDenylist, "sort -o{/outside/x,} data.txt"},

		// cd moves where relative paths land.
		{"cd", ScreenDenylist, "cd /tmp && echo x > evil"},
		{"cd", ScreenDenylist, "cd $HOME; echo x > .bashrc"},
		{"cd", ScreenDenylist, "cd ~ && touch .profile"},
		{"cd", ScreenDenylist, "cd /etc; cp /ws/x cron.d/x"},

		// Globs that can reach "..".
		{"glob", ScreenAllowlist, "cat .*/etc/shadow"},
	} {
		t.Run(tt.family+"/"+tt.cmd, func(t *testing.T) {
			s, err := NewScreener(&ScreenOptions{Mode: tt.mode, Allow: withWrappers, Workspace: "/ws"})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Check(tt.cmd, "/ws")
			if err == nil {
				t.Fatalf("%q admitted, want refused", tt.cmd)
			}
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("error %v does not wrap ErrRefused", err)
			}
			t.Log(err)
		})
	}
}

// TestScreenStillRefused holds bypass attempts of the same families that
// the old screen already refused (some for a cruder reason), so the new one
// must too.
func TestScreenStillRefused(t *testing.T) {
	withShell := slices.Concat(DefaultAllow, []string{"sh", "bash", "env", "cd"})
	for _, tt := range []struct {
		mode ScreenMode
		cmd  string
	}{
		{ScreenAllowlist, "sort --compress-program=sh data.txt"},
		{ScreenAllowlist, "sort -o /outside/x data.txt"},
		{ScreenAllowlist, "sort --output=/outside/x data.txt"},
		{ScreenAllowlist, "sort --output /outside/x data.txt"},
		{ScreenAllowlist, "'s''ort' --comp=sh data.txt"},
		{ScreenAllowlist, "\\sort --comp=sh data.txt"},
		{ScreenDenylist, "exec 3>/outside/x"},
		{ScreenAllowlist, "exec 3>/outside/x"},
		{ScreenDenylist, "sort -o >(sh) data.txt"},
		{ScreenAllowlist, "cat <(sort --comp=sh x)"},
		{ScreenAllowlist, "sh -c 'sort --comp=sh x'"},
		{ScreenAllowlist, "bash -c \"sort -o/outside/x y\""},
		{ScreenAllowlist, "sh -c \"$X\""},
		{ScreenAllowlist, "sh -c 'sh -c \"date -f/etc/shadow\"'"},
		{ScreenAllowlist, "echo $(sort --comp=sh x)"},
		{ScreenAllowlist, "ls $(echo /etc)"},
		{ScreenAllowlist, "sort $(echo --compress-program=sh) data.txt"},
		{ScreenAllowlist, "ls &"},
		{ScreenAllowlist, "cat /proc/self/root/etc/shadow"},
		{ScreenAllowlist, "cat < /dev/fd/../../../etc/shadow"},
		{ScreenAllowlist, "echo x >/proc/self/fd/3/../../../../outside"},
		{ScreenAllowlist, "find . -newer /etc/shadow"},
		{ScreenAllowlist, "find . -fprint /tmp/x"},
		{ScreenAllowlist, "find . -okdir id ;"},
		{ScreenAllowlist, "env LD_PRELOAD=x.so ls"},
		{ScreenAllowlist, "x() { ls; }; x"},
		{ScreenDenylist, "sh -c 'ls'"},
		{ScreenAllowlist, "cd /etc && cat shadow"},
		{ScreenAllowlist, "cd - && ls"},
		{ScreenAllowlist, "echo ${LD_PRELOAD:=/ws/x.so}"},
		{ScreenDenylist, "echo ${PATH:=/tmp}"},
		{ScreenAllowlist, "sort --outp=/outside/x data.txt"},
		{ScreenAllowlist, "sort --out /outside/x data.txt"},
		{ScreenAllowlist, "sort --temporary-dir=/outside data.txt"},
		{ScreenAllowlist, "printf -v PATH /tmp"},
		{ScreenAllowlist, "sort -o /dev/fd/../../../outside/x data.txt"},
		{ScreenAllowlist, "env -C / cat etc/shadow"},
		{ScreenAllowlist, "env --chdir=/ cat etc/shadow"},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			s, err := NewScreener(&ScreenOptions{Mode: tt.mode, Allow: withShell, Workspace: "/ws"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(tt.cmd, "/ws"); err == nil {
				t.Fatalf("%q admitted, want refused", tt.cmd)
			} else {
				t.Log(err)
			}
		})
	}
}

// TestScreenAdmits is the other half: ordinary commands inside the
// workspace stay allowed in allowlist mode.
func TestScreenAdmits(t *testing.T) {
	withShell := slices.Concat(DefaultAllow, []string{"sh", "env", "nice", "timeout", "cd"})
	for _, cmd := range []string{
		"ls -la",
		"ls -la --color=never src",
		"grep -rn foo .",
		"grep -rn 'func main' --include='*.go' .",
		"grep -e foo -e bar -- notes.txt",
		"grep -5 foo notes.txt",
		"sort -o out.txt in.txt",
		"sort -uo out.txt in.txt",
		"sort --output=out.txt in.txt",
		"sort --out=/ws/out.txt in.txt",
		"sort -S 1 -k2,2n -t, data.csv",
		"sort -T tmp data.txt",
		"file README.md",
		"file -m magic.mgc README.md",
		"file -bf list.txt",
		"date +%F",
		"date -u -d yesterday +%Y-%m-%d",
		"date -f dates.txt",
		"date -r go.mod",
		"date -Iseconds",
		"find . -name '*.go' -newer go.mod -type f",
		"find src -maxdepth 2 -name x -print",
		"head -5 README.md",
		"head -n 20 README.md",
		"tail -n 20 log.txt",
		"wc -l *.go",
		"du -sh .",
		"df -h",
		"cut -d: -f1 data.txt",
		"diff -u a.txt b.txt",
		"stat -c %s README.md",
		"tr a-z A-Z < in.txt",
		"uniq -c sorted.txt counts.txt",
		"echo hello > out.txt",
		"echo x > /dev/fd/1",
		"echo x >/proc/self/fd/2",
		"ls >/dev/null 2>&1",
		"grep foo notes.txt 2>/dev/null",
		"ls | sort | head",
		"grep -c x a.txt && echo found || echo none",
		"(ls; pwd) 2>/dev/null || ls",
		"echo $(date +%F)",
		"echo \"today is $(date +%F)\"",
		"cat {a,b}.txt",
		"which ls",
		"uname -a",
		"whoami",
		"pwd",
		"printf '%s\\n' a b",
		"echo -n x",
		"cat <<'EOF' > notes.md\nhello\nEOF",
		"sh -c 'ls -la | head'",
		"env sort data.txt",
		"nice -n 5 sort data.txt",
		"timeout 5 grep -rn foo .",
		"cat /ws/sub/file.txt",
		"head -c 16 /dev/urandom",
		"cd sub && ls -la && cat notes.txt",
		"ls -lah",
		"ls -ltr --time-style=long-iso",
		"ls -d */",
		"ls --color=auto -1",
		"head -n -5 a.txt",
		"tail -n +5 a.txt",
		"tail -20 a.txt",
		"sort -k 2 -n -r a.txt",
		"sort -t $'\t' -k2,2 a.tsv",
		"sort -nrk2 a.txt",
		"sort -u --parallel=2 a.txt | uniq -c | sort -rn | head",
		"wc -lc a.txt",
		"du -h --max-depth=1 .",
		"df -h .",
		"date '+%Y-%m-%d %H:%M'",
		"date -u +%s",
		"find . -type f -name '*.go' | wc -l",
		"find . -maxdepth 1 -type d",
		"find . -mtime -1 -size +1M",
		"find . -path ./vendor -prune -o -name '*.go' -print",
		"find . -iname x -not -path '*/.git/*'",
		"find . -regex '.*\\.go' -print0",
		"stat -c '%s %n' *",
		"cut -c1-10 a.txt",
		"echo 'a b' | tr ' ' '\n'",
		"tr -s ' ' < a.txt",
		"printf '%s\n' \"$HOME\"",
		"diff -rq a b",
		"grep -E 'a|b' a.txt",
		"grep -c '' a.txt",
		"grep -v -e x a.txt",
		"grep -i --color=never -n x a.txt",
		"grep -rl --exclude-dir=.git TODO .",
		"rg -n foo",
		"rg -tgo foo",
		"rg --type go -l foo src",
		"rg -g '*.go' --hidden foo .",
		"tree -L 2",
		"tree -a -I node_modules",
		"which go",
		"uname -r",
		"file --mime-type README.md",
		"cat README.md | head -50",
	} {
		t.Run(cmd, func(t *testing.T) {
			s, err := NewScreener(&ScreenOptions{Mode: ScreenAllowlist, Allow: withShell, Workspace: "/ws"})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(cmd, "/ws"); err != nil {
				t.Fatalf("%q refused, want admitted: %v", cmd, err)
			}
		})
	}
}
