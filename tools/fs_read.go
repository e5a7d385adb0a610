package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/joshbot/joshbot/sandbox/fence"
)

// Limits on what read_file returns in one call. A model's context is the
// scarce resource; a larger file is read in windows with offset and limit.
const (
	readMaxLines    = 2000
	readMaxBytes    = 256 << 10
	readMaxLineLen  = 2000
	lineTruncMarker = " …[line truncated]"
)

type readFileTool struct{ c *contained }

func (t *readFileTool) Name() string { return "read_file" }

func (t *readFileTool) Description() string {
	return "Read a text file in the workspace. Each output line is prefixed with its line number and a tab " +
		"(\"    12\\tcontent\"); the number and tab are not part of the file, so leave them out of edit_file's old_text. " +
		fmt.Sprintf("At most %d lines or %d KiB are returned per call; a marker at the end says how to read the rest with offset and limit. ", readMaxLines, readMaxBytes>>10) +
		fmt.Sprintf("Lines longer than %d characters are cut. Binary files are refused.", readMaxLineLen)
}

func (t *readFileTool) Parameters() json.RawMessage {
	return readFileSchema.get()
}

type readFileArgs struct {
	Path   *string `json:"path" jsonschema:"File to read, relative to the workspace (or absolute inside it)."`
	Offset *int    `json:"offset,omitempty" jsonschema:"1-based line number to start at. Default 1." schema:"minimum=1"`
	Limit  *int    `json:"limit,omitempty" jsonschema:"Maximum number of lines to return. Default and maximum 2000." schema:"minimum=1,maximum=2000"`
}

var readFileSchema = lazySchema{of: (*readFileArgs)(nil)}

func (t *readFileTool) Execute(ctx context.Context, raw json.RawMessage) (string, error) {
	const name = "read_file"
	var a readFileArgs
	if err := decodeArgs(name, raw, &a); err != nil {
		return "", err
	}
	if a.Path == nil {
		return "", missing(name, "path")
	}
	offset, limit := 1, readMaxLines
	if a.Offset != nil {
		if *a.Offset < 1 {
			return "", errorf("%s: offset must be 1 or more (it is a 1-based line number), got %d", name, *a.Offset)
		}
		offset = *a.Offset
	}
	if a.Limit != nil {
		if *a.Limit < 1 {
			return "", errorf("%s: limit must be 1 or more, got %d", name, *a.Limit)
		}
		limit = min(*a.Limit, readMaxLines)
	}

	fi, _, err := t.c.stat(*a.Path)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	if fi.IsDir() {
		return "", errorf("%s: path %q is a directory; use list_dir to see its contents", name, *a.Path)
	}
	f, real, err := t.c.open(*a.Path)
	if err != nil {
		return "", errorf("%s: %w", name, err)
	}
	defer f.Close()

	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(binarySniffLen); isBinary(head) {
		return "", errorf("%s: path %q looks like a binary file (it contains NUL bytes); read_file only shows text", name, *a.Path)
	}

	var (
		out       strings.Builder
		total     int
		last      int
		hitBytes  bool
		lineLimit bool
	)
	for {
		text, err := readLine(br, readMaxLineLen)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", errorf("%s: reading %q: %w", name, *a.Path, unwrapPathErr(err))
		}
		total++
		if total%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		if total < offset || hitBytes || lineLimit {
			continue
		}
		if total-offset >= limit {
			lineLimit = true
			continue
		}
		entry := fmt.Sprintf("%6d\t%s\n", total, text)
		if out.Len()+len(entry) > readMaxBytes {
			hitBytes = true
			continue
		}
		out.WriteString(entry)
		last = total
	}

	if total == 0 {
		return fmt.Sprintf("(%q is empty)", *a.Path), nil
	}
	if offset > total {
		return "", errorf("%s: offset %d is past the end of %q, which has %d lines", name, offset, *a.Path, total)
	}
	if offset > 1 || last < total {
		fmt.Fprintf(&out, "[showing lines %d-%d of %d", offset, last, total)
		if hitBytes {
			fmt.Fprintf(&out, "; output capped at %d KiB", readMaxBytes>>10)
		}
		if last < total {
			fmt.Fprintf(&out, ". To read more, call read_file with offset=%d", last+1)
		}
		out.WriteString("]\n")
	}
	return fence.Wrap("read_file:"+t.c.rel(real), out.String(), nil), nil
}

// readLine returns the next line without its line ending, cut to max bytes
// (on a rune boundary, with a marker) when longer. The rest of an over-long
// line is consumed and dropped, so one minified line cannot blow the output
// budget. io.EOF means there are no more lines.
func readLine(br *bufio.Reader, max int) (string, error) {
	var (
		buf []byte
		cut bool
	)
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && (buf != nil || cut) {
				break
			}
			return "", err
		}
		if buf == nil {
			buf = make([]byte, 0, min(len(chunk), max))
		}
		if room := max - len(buf); room > 0 {
			take := min(room, len(chunk))
			buf = append(buf, chunk[:take]...)
			if take < len(chunk) {
				cut = true
			}
		} else if len(chunk) > 0 {
			cut = true
		}
		if !isPrefix {
			break
		}
	}
	if cut {
		// Drop a rune split by the cut, but never more than one rune's worth:
		// the file may simply not be UTF-8.
		for i := 0; i < utf8.UTFMax-1 && len(buf) > 0; i++ {
			if r, size := utf8.DecodeLastRune(buf); r != utf8.RuneError || size != 1 {
				break
			}
			buf = buf[:len(buf)-1]
		}
		return string(buf) + lineTruncMarker, nil
	}
	return string(buf), nil
}
