package onboard

import (
	"fmt"

	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/sandbox"
)

// ApplySandboxChoice carries out --shell-sandbox for a new config cfg on a
// system that reports rep, and
// returns the line telling the user what was chosen. "auto" turns the
// sandbox on where this system can confine commands and deny them the
// network, since a confined shell can be given ordinary commands while an
// unconfined one is held to an allowlist.
func ApplySandboxChoice(choice string, cfg *config.Config, rep sandbox.Report) (string, error) {
	usable := rep.Available && rep.CanDenyNetwork
	switch choice {
	case "", "auto", "on":
		if !usable {
			if choice == "on" {
				return "", errorf("--shell-sandbox on: %s; use --shell-sandbox off", describeNoSandbox(rep))
			}
			return fmt.Sprintf("Shell sandbox: not available (%s); the shell runs allowlisted read-only commands only.", describeNoSandbox(rep)), nil
		}
		cfg.Tools.ShellSandbox = "workspace"
		return fmt.Sprintf("Shell sandbox: on (%s): commands can write only the workspace and build caches and cannot reach the network (tools.shell_sandbox; --shell-sandbox off to decline).", describeSandbox(rep)), nil
	case "off":
		return "Shell sandbox: off; the shell runs allowlisted read-only commands only (set tools.shell_sandbox to \"workspace\" to change this).", nil
	}
	return "", errorf("--shell-sandbox %q: use auto, on or off", choice)
}

// SandboxHint is the line for an existing config that could turn the
// sandbox on, on a system that reports rep, or "" when there is nothing to
// suggest.
func SandboxHint(cfg *config.Config, rep sandbox.Report) string {
	if cfg.Tools.SandboxEnabled() || !rep.Available || !rep.CanDenyNetwork {
		return ""
	}
	return fmt.Sprintf("This system can sandbox shell commands (%s): set tools.shell_sandbox to \"workspace\" in the config to turn it on.", describeSandbox(rep))
}

func describeSandbox(rep sandbox.Report) string {
	if rep.Mechanism == "landlock" {
		return fmt.Sprintf("Landlock ABI %d", rep.LandlockABI)
	}
	return rep.Mechanism
}

func describeNoSandbox(rep sandbox.Report) string {
	if rep.Available {
		return fmt.Sprintf("%s cannot deny network access here", describeSandbox(rep))
	}
	return rep.Reason
}

// ShellConfinement says, for preflight and status, whether the shell
// would run confined under cfg on a system that reports rep, and why. It mirrors the
// decisions runtime.Load makes for the shell without building anything.
func ShellConfinement(cfg *config.Config, rep sandbox.Report) (confined bool, detail string) {
	avail := "no sandbox here: " + rep.Reason
	if rep.Available {
		avail = describeSandbox(rep) + " available"
	}
	if !cfg.Tools.SandboxEnabled() {
		return false, fmt.Sprintf("not confined: allowlisted commands only (tools.shell_sandbox is off; %s)", avail)
	}
	if !rep.Available {
		return false, fmt.Sprintf("startup error: tools.shell_sandbox is \"workspace\" but there is %s", avail)
	}
	if !cfg.Tools.ShellSandboxAllowNetwork && !rep.CanDenyNetwork {
		return false, fmt.Sprintf("startup error: %s cannot deny network access; set tools.shell_sandbox_allow_network to true", describeSandbox(rep))
	}
	net := "network denied"
	if cfg.Tools.ShellSandboxAllowNetwork {
		net = "network allowed"
	}
	return true, fmt.Sprintf("confined (%s, %s)", describeSandbox(rep), net)
}
