package discord

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on first use, so package
// start-up does no work for the commands that never need it. A
// package-level &lazyRegexp{expr: ...} is laid out by the linker: the
// package runs no initialisation code for it.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
	expr string
}

// get returns the compiled expression.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
