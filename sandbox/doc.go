// Package sandbox runs untrusted commands with as little reach as the host
// allows. It is a leaf module with no dependency on the rest of joshbot, so
// any Go program that executes commands on behalf of someone else can import
// it. It also holds the address policy that keeps connections made on
// someone else's behalf off loopback and the local network.
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
// server even when someone allowlists them by mistake.
//
// # Screening
//
// A [Screener] refuses commands before they run: a deny list, the
// well-known tricks (wrappers, quoting and expansion in the program name,
// code piped into a shell, programs that run other programs through a
// flag, paths out of the workspace), and in allowlist mode any construct
// that can start a second command. Screening is cooperative hardening; a
// shell is too rich a language to screen completely. The sandbox is the
// wall.
//
// # Confinement
//
// On Linux a [Sandbox] confines a command with Landlock: the program
// re-executes itself as a helper ([HelperArg], [RunHelperIfRequested]),
// the helper restricts itself and then execs the command, so only the
// child is confined. The workspace, the build caches and a private TMPDIR
// are writable, system directories readable, everything else unreachable,
// and outbound TCP is denied unless [Policy.AllowNetwork]. On macOS a
// deny-by-default Seatbelt profile ([SeatbeltProfile]) is applied through
// /usr/bin/sandbox-exec. Where neither exists, [New] returns
// [ErrUnsupported]; [Probe] reports what the system offers.
//
// # Public addresses
//
// [PublicAddr] is the one rule for which addresses something that came
// from outside (a URL in a tool call, an MCP server's URL) may make this
// program connect to: public unicast only, with IPv6 forms that carry an
// IPv4 address judged by the address inside. [DialControl] applies it to
// the socket just before connect(2), after every lookup and redirect, so
// neither DNS rebinding nor a redirect gets past it; its refusals wrap
// [ErrNonPublicAddress]. [DescribeAddr] says why an address was refused.
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
