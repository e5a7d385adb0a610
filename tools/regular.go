package tools

import "errors"

// errNotRegular is matched (with errors.Is) by the error of an open that
// found something other than a regular file: reading a FIFO, a device or a
// socket can block forever or never end, and none of them is a document.
var errNotRegular = errors.New("not a regular file")

type notRegularError struct{ what string }

func (e *notRegularError) Error() string {
	return "it is a " + e.what + ", not a regular file; the file tools read only regular files"
}

func (e *notRegularError) Is(target error) bool { return target == errNotRegular }
