package tools

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on first use, so package start-up does no work for
// the commands that never need the expression.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
