package main

import (
	"os"
	"regexp"
	"strings"
)

// redactText makes text safe to print or to write into an export: what the
// sessions and memory commands show passes through it first. It is a
// variable so that the project's redaction package can be plugged in at one
// place (redactText = redact.String); until then builtinRedact covers the
// commonest credential shapes and the home directory.
var redactText = builtinRedact

// secretShapes are credential forms common enough that printing one would
// be a plain leak.
var secretShapes = []*regexp.Regexp{
	regexp.MustCompile(`\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{16,}`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}`),
	regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{30,}`),
}

var (
	bearerShape = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}`)
	assignShape = regexp.MustCompile(`(?i)\b([A-Za-z0-9_]*(?:api[_-]?key|token|secret|password|passwd))(\s*[:=]\s*)("?)[^\s"',;]{4,}`)
)

// builtinRedact is the minimal redaction used until the redaction package
// is wired in.
func builtinRedact(s string) string {
	for _, re := range secretShapes {
		s = re.ReplaceAllString(s, "[REDACTED]")
	}
	s = bearerShape.ReplaceAllString(s, "$1 [REDACTED]")
	s = assignShape.ReplaceAllString(s, "$1$2$3[REDACTED]")
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 {
		s = strings.ReplaceAll(s, home, "~")
	}
	return s
}
