// Package sandbox runs untrusted commands with as little reach as the host
// allows. It is a leaf module with no dependency on the rest of joshbot, so
// any Go program that executes commands on behalf of someone else can import
// it. Its package egress holds the one outbound address guard, which keeps
// connections made on someone else's behalf off loopback and the local
// network.
//
// # Quick start
//
//	func main() {
//		sandbox.RunHelperIfRequested() // first: the Linux helper re-executes this binary
//		...
//	}
//
//	scr, _ := sandbox.NewScreener(&sandbox.ScreenOptions{Mode: sandbox.ScreenDenylist, Workspace: ws})
//	if err := scr.Check(line, ws); err != nil { ... }           // refused before anything runs
//	if d, err := sandbox.Ask(ctx, sandbox.ApproverFromContext(ctx), req); d == sandbox.Deny { ... }
//	sb, err := sandbox.New(&sandbox.Policy{Workspace: ws}, nil) // ErrUnsupported: fail closed
//	cmd, cleanup, _ := sb.Command(ctx, ws, []string{"/bin/sh", "-c", line}, sandbox.ChildEnv(os.Environ(), nil))
//
// # Child environment
//
// [ChildEnv] gives a child an allowlist of variables instead of the
// parent's environment, then drops any name shaped like a credential
// ([SecretName]), so provider keys never reach a shell command or an MCP
// server even when someone allowlists them by mistake. Credentials inside
// URLs (GOPROXY=https://user:token@proxy) are stripped from the values that
// pass ([StripURLCredentials]).
//
// # Screening
//
// A [Screener] refuses commands before they run. It parses the command
// line with a real shell parser (mvdan.cc/sh, bash dialect) and judges
// every command in it, in pipelines, lists, subshells, control
// structures, command substitutions and here-documents, and behind
// wrappers (env, nice, timeout and the like). Each word is judged after
// what can be known before the command runs: quote removal, escapes,
// ANSI-C quoting and brace expansion. Redirection targets and the path
// values of options are paths, and /dev/fd/... and /proc/self/fd/...
// spellings are resolved lexically first (/dev/fd/../../x is /x). Every
// program of [DefaultAllow] has an option table: GNU long options are
// resolved by unique prefix as getopt_long does (--compress-prog is
// --compress-program), attached values (-o/path, -fo/path, --output=path)
// are checked as the files they read or write, and options that run a
// program are refused.
//
// [ScreenAllowlist] fails closed: it is what stands between a command and
// the host where the sandbox is off. A program off the allowlist, an
// option its table does not know or that abbreviates ambiguously, a word
// computed when the command runs where its value matters (the program
// name, an option, a path), a path outside the workspace or a construct it
// cannot judge (background jobs, functions, process substitution,
// arithmetic, a shell running a script file) is refused with a reason.
// An allowlisted sh or bash may run a literal -c string, which is screened
// as a command line of its own.
//
// [ScreenDenylist] is hardening for use inside the sandbox, which is the
// wall: a deny list, the well-known tricks (quoting and expansion in the
// program name, code piped into a shell, programs that run other programs
// through a flag, writes out of the workspace), with the same parser and
// option tables. A shell is too rich a language to screen completely, so
// deny list mode lets through what the sandbox contains.
//
// # Confinement
//
// On Linux a [Sandbox] runs each command in new user, mount, PID,
// network, IPC, UTS and cgroup namespaces. The program re-executes itself
// (or runs a dedicated helper program, [Options.Helper], pinned by
// [Options.HelperBuildID])
// as a helper ([HelperArg], [RunHelperIfRequested]) that becomes the first
// process of the new PID namespace and stays as its init: it builds a
// private root (a tmpfs holding the system directories read-only, the
// workspace and the policy's directories, a private /tmp, a fresh /proc
// and a /dev of null, zero, full, random, urandom and tty only; no /sys,
// /run or /home), applies Landlock to the same paths, drops every
// capability, sets no_new_privs, installs a seccomp filter and starts the
// command. It forwards signals, reaps orphans and exits with the
// command's status after killing whatever the command left behind, so
// nothing a command starts (a background job, a setsid double fork, a
// lock holder) outlives the call or its timeout.
//
// [Sandbox.Start] runs a command the same way without os/exec: the
// command is handed, with the descriptors it needs, to a helper that is
// already running in fresh namespaces. [Sandbox.Prestart] starts that
// helper ahead of time, so a program that runs one command after another
// does not wait for a program to start on each; [Sandbox.Close] stops
// the one still waiting. Every command still gets namespaces of its own.
// A dedicated helper linked with
// [github.com/joshbot/joshbot/sandbox/helper.Entry] as its entry point
// (linux/amd64) makes those namespaces itself, before the Go runtime
// starts: Start then starts it by vfork, without copying the calling
// program's page tables or leaving its memory copy-on-write behind, and
// the helper then confines, runs and supervises the command without
// starting the Go runtime at all, making the same system calls as the Go
// helper: a command costs about half as much.
//
// When the calling process is root, the command runs as an unprivileged
// host id (uid and gid 2^31-2^16): root's files and /etc/shadow are
// visible but closed to it. Each policy directory reaches it through an
// idmapped mount made by the parent, in which the directory's real owner
// appears as that id, so the command can write the workspace and what it
// writes is owned on disk by the workspace's owner. A caller that is not
// root maps its own ids and binds the directories as they are.
//
// The seccomp filter allows only Unix sockets and TCP (no UDP, raw,
// packet, netlink or MPTCP sockets) and refuses device nodes, set-id
// modes (in chmod and in the mode of a file being created), mounting,
// namespaces, ptrace, the kernel keyring, BPF, io_uring, TIOCSTI and the
// like with EPERM; setting extended attributes fails with EOPNOTSUPP, as
// on a filesystem without them. With
// [Policy.AllowNetwork] the command's network namespace still has only
// loopback: its HTTP_PROXY and HTTPS_PROXY name a port there, and each
// connection is handed to a proxy in the calling process that dials
// through [egress.Control] ([Options.ProxyAllow] widens it). Build caches
// live under [Policy.CacheDir], never the user's own.
//
// Every layer is required: where one is missing, [New] returns an error
// wrapping [ErrUnsupported] that names it, and [Probe] reports each one
// ([Report.Layers]). On macOS a deny-by-default Seatbelt profile
// ([SeatbeltProfile]) is applied through /usr/bin/sandbox-exec. Elsewhere
// [New] returns [ErrUnsupported].
//
// # Public addresses
//
// Package [github.com/joshbot/joshbot/sandbox/egress] is the one rule for
// which addresses something that came from outside (a URL in a tool call
// or a message, an MCP server's URL) may make a program connect to, and
// the dialer, socket hook and HTTP client that enforce it. The confined
// command's network proxy dials through it. PublicAddr, DescribeAddr,
// DialControl and ErrNonPublicAddress here are deprecated aliases of it.
//
// # Approval
//
// An [Approver] travels on the request context ([WithApprover]).
// [ApproverFromContext] returns [DenyAll] when none was installed and the
// zero [Decision] is [Deny], so a context nobody prepared refuses. [Ask]
// turns an error, a deadline or a cancellation into a denial. The tools
// module also asks it for any call that acts after a turn read untrusted
// text; [ApprovalRequest.Reason] then says so.
//
// # Untrusted text
//
// Package sandbox/fence is the text-side counterpart of confinement: it
// fences text from outside joshbot (web pages, files, command output, MCP
// results, webhooks) as data for the model and defangs joshbot's prompt
// tags inside it. It lives here so that the tools module and the MCP
// client, which both import this module, share one implementation.
package sandbox
