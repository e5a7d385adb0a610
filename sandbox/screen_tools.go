package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// argMode says whether an option takes a value.
type argMode uint8

const (
	argNone     argMode = iota // a flag
	argRequired                // --opt=v, --opt v, -ov, -o v
	argOptional                // only attached: --opt=v, -ov
)

// optKind says what an option's value, or the option itself, does.
type optKind uint8

const (
	kindData     optKind = iota // a value that names no file
	kindRead                    // the value names a file read
	kindReadList                // a colon-separated list of files read
	kindWrite                   // the value names a file or directory written
	kindExec                    // the value names a program run
	kindDeny                    // the option is refused whatever its value
)

// opt is one option of a tool.
type opt struct {
	name string
	arg  argMode
	kind optKind
}

// longOpts is a tool's long options, resolved the way getopt_long does:
// an exact name, or else any unique prefix.
type longOpts []opt

var (
	errUnknownOpt   = errors.New("the option is not one the screen knows for this program")
	errAmbiguousOpt = errors.New("the option is an ambiguous abbreviation")
)

// lookup resolves a long option name (without "--" and "=value").
func (l longOpts) lookup(name string) (opt, error) {
	var hits []opt
	for _, o := range l {
		if o.name == name {
			return o, nil
		}
		if name != "" && strings.HasPrefix(o.name, name) {
			hits = append(hits, o)
		}
	}
	switch len(hits) {
	case 0:
		return opt{}, errUnknownOpt
	case 1:
		return hits[0], nil
	}
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = "--" + h.name
	}
	return opt{}, fmt.Errorf("%w (%s)", errAmbiguousOpt, strings.Join(names, ", "))
}

// candidates returns every option name could still become.
func (l longOpts) candidates(name string) []opt {
	var out []opt
	for _, o := range l {
		if strings.HasPrefix(o.name, name) {
			out = append(out, o)
		}
	}
	return out
}

// operandKind says what a tool's operands are.
type operandKind uint8

const (
	operandsRead        operandKind = iota // files or directories read
	operandsData                           // text, not files
	operandsPatternRead                    // a pattern (unless -e/-f gave one), then files read
	operandsDateFormat                     // +FORMAT only: any other operand sets the clock
	operandsReadWrite                      // INPUT then OUTPUT (uniq)
	operandsWrite                          // files written (tee)
	operandsFind                           // find's own grammar
)

// toolSpec is what the screen knows about one program's command line.
type toolSpec struct {
	// shortSpec and longSpec are the option tables in the notations of
	// shortTable and longTable, parsed on the program's first use (see
	// shorts and longs): a screen that meets only a few programs, a
	// turn's one command, parses only their tables.
	shortSpec, longSpec string
	parse               sync.Once
	short               map[byte]opt
	long                longOpts
	operands            operandKind
	// digits admits -NUM (head -5, grep -3).
	digits bool
	// echoLike: options only in front, and a word that is not entirely
	// known flags is an operand (echo -x prints "-x").
	echoLike bool
	// dynamicOK admits words computed when the command runs: the program
	// has no option that reads, writes or runs anything, and its operands
	// are text.
	dynamicOK bool
	// patternOpts name the options that supply the pattern, so that every
	// operand is a file.
	patternOpts string
}

// longTable parses a long option list: "name" is a flag, "name=" takes a
// value, "name?" takes an optional attached value, and a suffix r, l, w or
// x after "=" or "?" marks a value that is a file read, a list of files
// read, a file written or a program run; "name!" is refused outright.
func longTable(spec string) longOpts {
	var out longOpts
	for _, t := range strings.Fields(spec) {
		out = append(out, parseOpt(t))
	}
	return out
}

func parseOpt(t string) opt {
	o := opt{name: t}
	if n, ok := strings.CutSuffix(t, "!"); ok {
		return opt{name: n, kind: kindDeny}
	}
	if i := strings.IndexAny(t, "=?:"); i >= 0 {
		o.name = t[:i]
		o.arg = argRequired
		if t[i] == '?' {
			o.arg = argOptional
		}
		switch t[i+1:] {
		case "r":
			o.kind = kindRead
		case "l":
			o.kind = kindReadList
		case "w":
			o.kind = kindWrite
		case "x":
			o.kind = kindExec
		}
	}
	return o
}

// shortTable parses short options in the same notation, one letter each:
// "b" a flag, "k:" a value, "o:w" a file written, "I?" an optional value,
// "s!" refused.
func shortTable(spec string) map[byte]opt {
	out := map[byte]opt{}
	for _, t := range strings.Fields(spec) {
		// A run of plain flags, the last letter perhaps with a marker.
		end := strings.IndexAny(t, "=?:!")
		if end < 0 {
			end = len(t) + 1
		}
		for i := 0; i < end-1; i++ {
			out[t[i]] = opt{name: t[i : i+1]}
		}
		if end <= len(t) {
			o := parseOpt(t[end-1:])
			out[o.name[0]] = o
		}
	}
	return out
}

func tool(short, long string, operands operandKind) *toolSpec {
	return &toolSpec{shortSpec: short, longSpec: "help version " + long, operands: operands}
}

// tables parses the spec's option tables, once.
func (t *toolSpec) tables() {
	t.parse.Do(func() { t.short, t.long = shortTable(t.shortSpec), longTable(t.longSpec) })
}

// shorts is the program's table of short options.
func (t *toolSpec) shorts() map[byte]opt { t.tables(); return t.short }

// longs is the program's table of long options.
func (t *toolSpec) longs() longOpts { t.tables(); return t.long }

var (
	toolSpecsOnce sync.Once
	toolSpecsVal  map[string]*toolSpec
)

// toolSpecs holds, built on first use, an option table for every program of [DefaultAllow] and
// a few more that write, each table parsed on the program's first use. A program on the allowlist without a table is
// judged by the generic rules: every word literal, every path inside the
// workspace.
func toolSpecs() map[string]*toolSpec {
	toolSpecsOnce.Do(func() { toolSpecsVal = buildToolSpecs() })
	return toolSpecsVal
}

func buildToolSpecs() map[string]*toolSpec {
	m := map[string]*toolSpec{
		"cat": tool("AbeEnstTuv",
			"show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting", operandsRead),
		"cut": tool("b: c: d: f: nsz",
			"bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated", operandsRead),
		"date": tool("d: f:r I? Ru r:r s!",
			"date= debug file=r iso-8601? resolution rfc-email rfc-822 rfc-2822 rfc-3339= reference=r set! utc universal", operandsDateFormat),
		"df": tool("aB: hHiklP t: Tx: v",
			"all block-size= human-readable si inodes local no-sync output? portability print-type sync total type= exclude-type=", operandsRead),
		"diff": tool("qscC: uU: enyW: lpF: tTrNx: X:r S: iEZbwBI: aD: d",
			"normal brief report-identical-files context? unified? ed rcs side-by-side width= expand-tabs initial-tab tabsize= "+
				"suppress-blank-empty suppress-common-lines left-column show-c-function show-function-line= label= paginate recursive "+
				"no-dereference new-file unidirectional-new-file ignore-file-name-case no-ignore-file-name-case exclude= exclude-from=r "+
				"starting-file= from-file=r to-file=r ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change "+
				"ignore-all-space ignore-blank-lines ignore-matching-lines= text strip-trailing-cr ifdef= old-group-format= "+
				"new-group-format= changed-group-format= unchanged-group-format= line-format= old-line-format= new-line-format= "+
				"unchanged-line-format= minimal horizon-lines= speed-large-files color? palette=", operandsRead),
		"du": tool("0abB: cDd: HhkLlmPSst: X:r x",
			"null all apparent-size block-size= bytes total dereference-args max-depth= files0-from=r human-readable inodes "+
				"count-links dereference no-dereference separate-dirs si summarize threshold= time? time-style= exclude-from=r "+
				"exclude= one-file-system", operandsRead),
		"file": tool("v m:l zZbc e: f:r F: iklLhnN0p P: rsS C! d",
			"magic-file=l uncompress uncompress-noreport brief checking-printout exclude= exclude-quiet= files-from=r "+
				"separator= mime apple extension mime-type mime-encoding keep-going list dereference no-dereference no-buffer "+
				"no-pad print0 preserve-date parameter= raw special-files no-sandbox compile! debug", operandsRead),
		"grep": tool("EFGP e: f:r iywxzsvVm: bnHhoqaI d: D: rRLlcTZB: A: C: Uu",
			"extended-regexp fixed-strings basic-regexp perl-regexp regexp= file=r ignore-case no-ignore-case word-regexp "+
				"line-regexp null-data no-messages invert-match max-count= byte-offset line-number line-buffered with-filename "+
				"no-filename label= only-matching quiet silent binary-files= text directories= devices= recursive "+
				"dereference-recursive include= exclude= exclude-from=r exclude-dir= files-without-match files-with-matches "+
				"count initial-tab null before-context= after-context= context= group-separator= no-group-separator color? "+
				"colour? binary", operandsPatternRead),
		"head": tool("c: n: qvz", "bytes= lines= quiet silent verbose zero-terminated", operandsRead),
		"tail": tool("c: n: fF qs: vz",
			"bytes= follow? lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose zero-terminated debug", operandsRead),
		"ls": tool("aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1 I: T: w:",
			"all almost-all author escape block-size= ignore-backups color? directory dired classify? file-type format= "+
				"full-time group-directories-first no-group human-readable si dereference-command-line "+
				"dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= inode ignore= kibibytes dereference "+
				"numeric-uid-gid literal hide-control-chars show-control-chars quote-name quoting-style= reverse recursive size "+
				"sort= time= time-style= tabsize= width= context zero", operandsRead),
		"stat": tool("Lft c:", "dereference file-system cached= format= printf= terse", operandsRead),
		"sort": tool("bdfgiMhnRrVcCmsuz k: o:w S: t: T:w",
			"ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort "+
				"human-numeric-sort numeric-sort random-sort random-source=r reverse sort= version-sort batch-size= check? "+
				"compress-program=x debug files0-from=r key= merge output=w stable buffer-size= field-separator= "+
				"temporary-directory=w parallel= unique zero-terminated", operandsRead),
		"tr":     tool("cCdst", "complement delete squeeze-repeats truncate-set1", operandsData),
		"uname":  tool("asnrvmpio", "all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system", operandsData),
		"uniq":   tool("cdDf: is: uw: z", "count repeated all-repeated? skip-fields= skip-chars= check-chars= ignore-case unique zero-terminated group?", operandsReadWrite),
		"wc":     tool("cmlLw", "bytes chars lines files0-from=r max-line-length words total=", operandsRead),
		"which":  tool("as", "", operandsData),
		"whoami": tool("", "", operandsData),
		"pwd":    tool("LP", "", operandsData),
		"tee":    tool("aip", "append ignore-interrupts output-error?", operandsWrite),
		"tree": tool("adlfxL: R! P: I: o:w qNQpugshDFvtcrUXJH: T: CnSAi",
			"gitignore gitfile=r ignore-case matchdirs metafirst prune info infofile=r noreport charset= filelimit= timefmt= "+
				"si du inodes device nolinks hintro=r houtro=r dirsfirst filesfirst sort= fromfile fromtabfile fflinks "+
				"opt-toggle noindent", operandsRead),
		"rg": tool("A: B: C: E: e: f:r g: ij: L lM: m: Nn o p q r: sS t: T: uUvVwxz0abcFHhI d:",
			"after-context= before-context= binary block-buffered byte-offset case-sensitive color= colors= column context= "+
				"context-separator= count count-matches crlf debug dfa-size-limit= encoding= engine= field-context-separator= "+
				"field-match-separator= file=r files files-with-matches files-without-match fixed-strings follow glob= "+
				"glob-case-insensitive heading hidden hostname-bin=x hyperlink-format= iglob= ignore-case ignore-file=r "+
				"ignore-file-case-insensitive include-zero invert-match json line-buffered line-number line-regexp "+
				"max-columns= max-columns-preview max-count= max-depth= max-filesize= mmap multiline multiline-dotall no-config "+
				"no-filename no-heading no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global "+
				"no-ignore-messages no-ignore-parent no-ignore-vcs no-line-number no-messages no-mmap no-pcre2-unicode "+
				"no-require-git no-unicode null null-data one-file-system only-matching passthru path-separator= pcre2 "+
				"pcre2-version pre=x pre-glob= pretty quiet regex-size-limit= regexp= replace= search-zip smart-case sort= "+
				"sortr= stats stop-on-nonmatch text threads= trim type= type-add= type-clear= type-list type-not= "+
				"unrestricted vimgrep with-filename word-regexp no-binary no-column no-crlf no-follow no-hidden no-json "+
				"no-multiline no-pcre2 no-search-zip no-sort-files no-text no-trim no-unicode no-block-buffered "+
				"no-line-buffered no-context-separator no-heading no-include-zero no-invert-match no-stats", operandsPatternRead),
		"find": {operands: operandsFind},
	}
	m["head"].digits = true
	m["tail"].digits = true
	m["grep"].digits = true
	m["grep"].patternOpts = "e f regexp file"
	m["rg"].patternOpts = "e f regexp file files type-list"
	m["echo"] = &toolSpec{shortSpec: "neE", operands: operandsData, echoLike: true, dynamicOK: true}
	m["printf"] = &toolSpec{shortSpec: "v:", operands: operandsData, echoLike: true, dynamicOK: true}
	return m
}

// tool judges the arguments of a program that has an option table.
func (w *walker) tool(prog string, spec *toolSpec, args []field) error {
	if spec.operands == operandsFind {
		return w.find(args)
	}
	var operands []field
	patternGiven := false
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if endOpts || (spec.echoLike && len(operands) > 0) {
			operands = append(operands, a)
			continue
		}
		if a.dynamic {
			if prog == "printf" && i == 0 {
				return refuse("printf's first argument %q is computed when the command runs; it could become -v, which sets a variable", a.raw)
			}
			if w.allowlist() && !spec.dynamicOK {
				return refuse("%s's argument %q is computed when the command runs; allowlist mode takes literal arguments only (a computed word can turn into an option or a path)", prog, a.raw)
			}
			if strings.HasPrefix(a.val, "-") {
				if err := w.dynamicOption(prog, spec, a); err != nil {
					return err
				}
				continue
			}
			operands = append(operands, a)
			continue
		}
		v := a.val
		if v == "--" && !spec.echoLike {
			endOpts = true
			continue
		}
		if len(v) < 2 || v[0] != '-' {
			operands = append(operands, a)
			continue
		}
		if spec.echoLike {
			if strings.Trim(v[1:], flagLetters(spec)) != "" || strings.HasPrefix(v, "--") {
				operands = append(operands, a)
				continue
			}
		}
		name, err := w.option(prog, spec, args, &i)
		if err != nil {
			return err
		}
		if slices.Contains(strings.Fields(spec.patternOpts), name) {
			patternGiven = true
		}
	}
	return w.operands(prog, spec, operands, patternGiven)
}

func flagLetters(spec *toolSpec) string {
	var b strings.Builder
	for c := range spec.shorts() {
		b.WriteByte(c)
	}
	return b.String()
}

// option judges the option at args[*i], moving *i past a value given as
// the next word. It returns the option's name as the table spells it.
func (w *walker) option(prog string, spec *toolSpec, args []field, i *int) (string, error) {
	a := args[*i]
	v := a.val
	next := func() *field {
		if *i+1 < len(args) {
			*i++
			f := args[*i]
			return &f
		}
		return nil
	}
	if strings.HasPrefix(v, "--") {
		name, val, hasEq := strings.Cut(v[2:], "=")
		o, err := spec.longs().lookup(name)
		if err != nil {
			if w.allowlist() || errors.Is(err, errAmbiguousOpt) {
				return "", refuse("%s --%s: %s; spell out an option %s accepts", prog, name, err.Error(), prog)
			}
			return "", nil
		}
		label := "--" + name
		if o.name != name {
			label = fmt.Sprintf("--%s (--%s)", name, o.name)
		}
		var vf *field
		switch o.arg {
		case argNone:
			if hasEq {
				return "", refuse("%s %s takes no value; remove =%s", prog, label, val)
			}
		case argOptional:
			if hasEq {
				vf = a.sub(val)
			}
		case argRequired:
			if hasEq {
				vf = a.sub(val)
			} else {
				vf = next()
			}
		}
		return o.name, w.judgeOpt(prog, label, o, vf, spec)
	}
	if spec.digits && strings.Trim(v[1:], "0123456789") == "" {
		return "", nil
	}
	for j := 1; j < len(v); j++ {
		o, ok := spec.shorts()[v[j]]
		if !ok {
			if w.allowlist() {
				return "", refuse("%s -%c is not an option the screen knows for %s; allowlist mode refuses options it cannot judge", prog, v[j], prog)
			}
			return "", nil
		}
		label := "-" + o.name
		switch o.arg {
		case argNone:
			if err := w.judgeOpt(prog, label, o, nil, spec); err != nil {
				return "", err
			}
			continue
		case argOptional:
			var vf *field
			if j+1 < len(v) {
				vf = a.sub(v[j+1:])
			}
			return o.name, w.judgeOpt(prog, label, o, vf, spec)
		default:
			var vf *field
			if j+1 < len(v) {
				vf = a.sub(v[j+1:])
			} else {
				vf = next()
			}
			return o.name, w.judgeOpt(prog, label, o, vf, spec)
		}
	}
	return "", nil
}

// sub is the value part of an option word.
func (f field) sub(val string) *field {
	return &field{val: val, raw: f.raw, quoted: f.quoted, glob: f.glob && strings.ContainsAny(val, "*?["), braced: f.braced}
}

// dynamicOption judges, in deny list mode, an option word whose end is
// computed when the command runs: refused when what it could become runs a
// program, writes, or is refused anyway.
func (w *walker) dynamicOption(prog string, spec *toolSpec, a field) error {
	bad := func(o opt) bool { return o.kind == kindExec || o.kind == kindDeny || o.kind == kindWrite }
	if rest, ok := strings.CutPrefix(a.val, "--"); ok {
		name, _, hasEq := strings.Cut(rest, "=")
		var cands []opt
		if hasEq {
			if o, err := spec.longs().lookup(name); err == nil {
				cands = []opt{o}
			}
		} else {
			cands = spec.longs().candidates(name)
		}
		if slices.ContainsFunc(cands, bad) {
			return refuse("%s's option %q is completed when the command runs and could run a program or write a file; spell it out", prog, a.raw)
		}
		return nil
	}
	for j := 1; j < len(a.val); j++ {
		o, ok := spec.shorts()[a.val[j]]
		if !ok {
			return nil
		}
		if bad(o) {
			return refuse("%s's option %q is completed when the command runs and could run a program or write a file; spell it out", prog, a.raw)
		}
		if o.arg != argNone {
			return nil
		}
	}
	return nil
}

// judgeOpt applies an option's kind to its value.
func (w *walker) judgeOpt(prog, label string, o opt, vf *field, spec *toolSpec) error {
	switch o.kind {
	case kindExec:
		return refuse("%s %s runs another program; the screen never allows that", prog, label)
	case kindDeny:
		return refuse("%s %s changes the system or writes files the screen cannot check; it is not allowed", prog, label)
	}
	if vf == nil {
		return nil
	}
	if vf.dynamic && w.allowlist() && !spec.dynamicOK {
		return refuse("%s %s value %q is computed when the command runs; allowlist mode takes literal arguments only", prog, label, vf.raw)
	}
	what := fmt.Sprintf("%s %s value %q", prog, label, vf.val)
	switch o.kind {
	case kindRead:
		return w.readPath(*vf, what)
	case kindReadList:
		if vf.dynamic {
			return w.readPath(*vf, what)
		}
		for _, p := range strings.Split(vf.val, ":") {
			if err := w.readPath(*vf.sub(p), what); err != nil {
				return err
			}
		}
	case kindWrite:
		return w.writePath(*vf, what)
	}
	if prog == "printf" && o.name == "v" && !vf.dynamic {
		if w.allowlist() {
			return refuse("printf -v sets a variable, which allowlist mode does not allow")
		}
		return w.assignName(vf.val)
	}
	return nil
}

// operands judges a tool's operands by what they are.
func (w *walker) operands(prog string, spec *toolSpec, ops []field, patternGiven bool) error {
	for i, a := range ops {
		what := fmt.Sprintf("%s's operand %q", prog, a.raw)
		if a.dynamic && w.allowlist() && !spec.dynamicOK {
			return refuse("%s is computed when the command runs; allowlist mode takes literal arguments only", what)
		}
		var err error
		switch spec.operands {
		case operandsRead:
			err = w.readPath(a, what)
		case operandsPatternRead:
			if i == 0 && !patternGiven {
				continue
			}
			err = w.readPath(a, what)
		case operandsDateFormat:
			if a.dynamic || !strings.HasPrefix(a.val, "+") {
				err = refuse("date %s sets the system clock; give a +FORMAT to print the date", a.raw)
			}
		case operandsReadWrite:
			if i == 0 {
				err = w.readPath(a, what)
			} else {
				err = w.writePath(a, what)
			}
		case operandsWrite:
			err = w.writePath(a, what)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// findPrimary is one test, action or operator of find's expression.
type findPrimary struct {
	nargs int
	kind  optKind
}

// findNewerXY reports whether p is one of find's -newerXY tests.
func findNewerXY(p string) bool {
	rest, ok := strings.CutPrefix(p, "-newer")
	return ok && len(rest) == 2 && strings.ContainsRune("aBcm", rune(rest[0])) && strings.ContainsRune("aBcmt", rune(rest[1]))
}

var (
	findPrimariesOnce sync.Once
	findPrimariesVal  map[string]findPrimary
)

func findPrimaries() map[string]findPrimary {
	findPrimariesOnce.Do(func() { findPrimariesVal = buildFindPrimaries() })
	return findPrimariesVal
}

func buildFindPrimaries() map[string]findPrimary {
	m := map[string]findPrimary{}
	for _, p := range strings.Fields("( ) ! , -not -a -and -o -or -print -print0 -ls -prune -quit -true -false -depth -d -mount -xdev " +
		"-noleaf -ignore_readdir_race -noignore_readdir_race -daystart -follow -nouser -nogroup -empty -executable -readable " +
		"-writable -help --help -version --version -warn -nowarn") {
		m[p] = findPrimary{}
	}
	for _, p := range strings.Fields("-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -type -xtype " +
		"-size -perm -user -group -uid -gid -links -inum -amin -atime -cmin -ctime -mmin -mtime -maxdepth -mindepth -fstype " +
		"-used -context -printf -regextype") {
		m[p] = findPrimary{nargs: 1}
	}
	for _, p := range strings.Fields("-newer -anewer -cnewer -samefile -files0-from") {
		m[p] = findPrimary{nargs: 1, kind: kindRead}
	}
	for _, p := range strings.Fields("-exec -execdir -ok -okdir") {
		m[p] = findPrimary{kind: kindExec}
	}
	for _, p := range strings.Fields("-fprint -fprint0 -fprintf -fls") {
		m[p] = findPrimary{kind: kindDeny}
	}
	m["-delete"] = findPrimary{kind: kindWrite}
	return m
}

// find judges find's options, starting points and expression.
func (w *walker) find(args []field) error {
	dyn := func(a field) error {
		return refuse("find's argument %q is computed when the command runs; allowlist mode takes literal arguments only", a.raw)
	}
	i := 0
	for i < len(args) && !args[i].dynamic {
		v := args[i].val
		switch {
		case v == "-H" || v == "-L" || v == "-P":
			i++
			continue
		case v == "-D":
			i += 2
			continue
		case strings.HasPrefix(v, "-O"):
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.dynamic && (len(a.val) > 1 && a.val[0] == '-' || a.val == "(" || a.val == "!" || a.val == ",") {
			break
		}
		if err := w.readPath(a, fmt.Sprintf("find's starting point %q", a.raw)); err != nil {
			return err
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		if a.dynamic {
			if w.allowlist() || strings.HasPrefix(a.val, "-") || a.val == "" {
				return dyn(a)
			}
			continue
		}
		v := a.val
		p, ok := findPrimaries()[v]
		if !ok && findNewerXY(v) {
			p, ok = findPrimary{nargs: 1, kind: kindRead}, true
			if v[len(v)-1] == 't' {
				p.kind = kindData
			}
		}
		if !ok {
			if w.allowlist() {
				return refuse("find %s is not a test or action the screen knows; allowlist mode refuses what it cannot judge", v)
			}
			continue
		}
		switch p.kind {
		case kindExec:
			return refuse("find %s runs another program; list the files, then act on them in a separate command", v)
		case kindDeny:
			return refuse("find %s writes a file; redirect find's output instead", v)
		case kindWrite:
			if w.allowlist() {
				return refuse("find %s removes files, and the allowlist holds programs that only read", v)
			}
		}
		for k := 0; k < p.nargs && i+1 < len(args); k++ {
			i++
			arg := args[i]
			if arg.dynamic && w.allowlist() {
				return dyn(arg)
			}
			if p.kind == kindRead {
				if err := w.readPath(arg, fmt.Sprintf("find %s %q", v, arg.raw)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// generic judges a program without an option table: the known tricks of
// common programs that run others, and the workspace rules on every word
// that can be a path.
func (w *walker) generic(prog string, args []field) error {
	lower := func(f field) string { return strings.ToLower(f.val) }
	for i, a := range args {
		t := a.val
		switch prog {
		case "man":
			if t == "-P" || t == "-H" || strings.HasPrefix(t, "--pager") || strings.HasPrefix(t, "--html") || strings.HasPrefix(t, "-P") {
				return refuse("man %s runs another program", t)
			}
		case "tar":
			for _, f := range []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command"} {
				if strings.HasPrefix(t, f) || (strings.HasPrefix(t, "--") && len(t) > 4 && strings.HasPrefix(f, strings.SplitN(t, "=", 2)[0])) {
					return refuse("tar %s runs another program", f)
				}
			}
			if t == "-I" || t == "-F" {
				return refuse("tar %s runs another program", t)
			}
		case "git":
			if t == "-c" || strings.HasPrefix(t, "--config-env") || strings.HasPrefix(t, "--upload-pack") ||
				strings.HasPrefix(t, "--receive-pack") || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "ext::") || strings.HasPrefix(t, "-u") {
				return refuse("git %s can make git run another program", t)
			}
		case "ssh", "scp", "sftp":
			if strings.Contains(lower(a), "proxycommand") || strings.Contains(lower(a), "localcommand") {
				return refuse("%s options that run local commands are not allowed", prog)
			}
		case "rsync":
			if t == "-e" || strings.HasPrefix(t, "--rsh") || strings.HasPrefix(t, "--rsync-path") {
				return refuse("rsync %s runs another program", t)
			}
		case "nc", "ncat", "netcat":
			if t == "-e" || t == "-c" || strings.HasPrefix(t, "--exec") || strings.HasPrefix(t, "--sh-exec") || strings.HasPrefix(t, "--lua-exec") {
				return refuse("%s %s connects a program to the network", prog, t)
			}
		case "socat":
			if l := lower(a); strings.Contains(l, "exec:") || strings.Contains(l, "system:") {
				return refuse("socat EXEC/SYSTEM addresses run a program on a socket")
			}
		case "awk", "gawk", "mawk", "nawk", "busybox-awk":
			if strings.Contains(t, "system(") || strings.Contains(t, "| getline") || strings.Contains(t, "|getline") ||
				strings.Contains(t, "print |") || strings.Contains(t, "print|") || strings.Contains(t, "printf |") {
				return refuse("%s programs that run commands (system, pipes) are not allowed", prog)
			}
		case "dd":
			if strings.HasPrefix(t, "of=/dev/") && t != "of=/dev/null" {
				return refuse("dd to a device is not allowed")
			}
		case "sed":
			if i == 0 && !strings.HasPrefix(t, "-") && (strings.HasSuffix(t, "/e") || strings.Contains(t, "/e;")) {
				return refuse("sed's e command runs the pattern space as a shell command")
			}
		}
		if err := w.genericPath(prog, a); err != nil {
			return err
		}
	}
	return nil
}

// genericPath applies the workspace rules to one argument of a program
// without a table: "~" and a ".." that climbs out are refused everywhere;
// programs that write must name literal paths inside the workspace; in
// allowlist mode every word is literal and no absolute path leaves the
// workspace.
func (w *walker) genericPath(prog string, a field) error {
	writes := slices.Contains(writers, prog)
	if w.allowlist() && a.dynamic {
		// Without the sandbox nothing else stands between $HOME/.ssh and
		// the command, so every word must be literal.
		return refuse("%q is expanded when the command runs; allowlist mode takes literal arguments only", a.raw)
	}
	if a.tilde() {
		return refuse("%q points at a home directory outside the workspace", a.raw)
	}
	cand := a.val
	if strings.HasPrefix(cand, "-") {
		_, v, ok := strings.Cut(cand, "=")
		if !ok {
			return nil
		}
		cand = v
	} else if k, v, ok := strings.Cut(cand, "="); ok && (k == "of" || k == "if") {
		cand = v
	}
	if a.dynamic {
		if writes {
			return refuse("%s's operand %q is computed when the command runs; spell out the path", prog, a.raw)
		}
		return nil
	}
	what := fmt.Sprintf("%s's argument %q", prog, a.raw)
	if writes {
		return w.writePath(*a.sub(cand), what)
	}
	abs := w.locate(cand)
	if w.inside(abs) || isStdio(abs) || slices.Contains(readDevices, abs) {
		return nil
	}
	if w.allowlist() && strings.HasPrefix(cand, "/") {
		return w.outsideMsg(what, abs)
	}
	if strings.Contains(cand, "..") {
		return refuse("%s climbs out of the workspace", what)
	}
	return nil
}
