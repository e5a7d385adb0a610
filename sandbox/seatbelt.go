package sandbox

import (
	"fmt"
	"strings"
)

// seatbeltMachServices are the only Mach services a confined command may
// look up. A blanket mach-lookup grant would reach XPC services that run
// outside the profile and act on the command's behalf, so each is named.
var seatbeltMachServices = []string{
	"com.apple.system.logger",
	"com.apple.system.notification_center",
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.coreservices.launchservicesd",
	"com.apple.CoreServices.coreservicesd",
}

// seatbeltNetServices are added only when the network is allowed: name
// resolution and trust evaluation for TLS.
var seatbeltNetServices = []string{
	"com.apple.dnssd.service",
	"com.apple.trustd",
	"com.apple.trustd.agent",
	"com.apple.SystemConfiguration.configd",
}

// seatbeltReadOnly are the macOS system locations a confined command may
// read and execute from.
var seatbeltReadOnly = []string{
	"/usr", "/bin", "/sbin", "/System", "/Library", "/Applications/Xcode.app", "/opt/homebrew", "/opt/local",
	"/private/etc", "/private/var/db/timezone", "/private/var/db/dyld", "/dev", "/etc", "/var",
}

// SeatbeltProfile returns the deny-by-default Seatbelt (sandbox-exec)
// profile that confines a command to p, with tmp as its private temporary
// directory. It is exported so the profile can be read and tested on any
// platform; macOS applies it through /usr/bin/sandbox-exec -p.
func SeatbeltProfile(p *Policy, tmp string) (string, error) {
	var b strings.Builder
	b.WriteString("(version 1)\n(deny default)\n")
	b.WriteString("(allow process-exec process-fork)\n")
	b.WriteString("(allow signal (target same-sandbox))\n")
	b.WriteString("(allow sysctl-read)\n")
	b.WriteString("(allow file-read-metadata)\n")
	b.WriteString("(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))\n")

	ro := append(append([]string{}, seatbeltReadOnly...), p.ReadOnly...)
	if err := writePaths(&b, "(allow file-read*", ro); err != nil {
		return "", err
	}
	rw := append([]string{p.Workspace, tmp}, p.ReadWrite...)
	if err := writePaths(&b, "(allow file-read* file-write*", rw); err != nil {
		return "", err
	}
	b.WriteString("(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (regex #\"^/dev/fd/[0-9]+$\"))\n")

	services := seatbeltMachServices
	if p.AllowNetwork {
		services = append(append([]string{}, services...), seatbeltNetServices...)
	}
	b.WriteString("(allow mach-lookup")
	for _, s := range services {
		fmt.Fprintf(&b, "\n  (global-name %s)", quoteSBPL(s))
	}
	b.WriteString(")\n")
	if p.AllowNetwork {
		b.WriteString("(allow network-outbound)\n(allow system-socket)\n")
	} else {
		b.WriteString("(deny network*)\n")
	}
	return b.String(), nil
}

func writePaths(b *strings.Builder, head string, paths []string) error {
	b.WriteString(head)
	for _, p := range paths {
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "/") {
			return fmt.Errorf("sandbox: seatbelt path %q is not absolute", p)
		}
		if strings.ContainsAny(p, "\x00\n\r") {
			return fmt.Errorf("sandbox: seatbelt path %q contains a control character", p)
		}
		fmt.Fprintf(b, "\n  (subpath %s)", quoteSBPL(p))
	}
	b.WriteString(")\n")
	return nil
}

// quoteSBPL quotes s as a profile-language string literal, so a path with
// a quote in it cannot end the literal and add rules of its own.
func quoteSBPL(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
