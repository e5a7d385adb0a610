// Package output holds the documents joshbot's read-only reporting commands
// print and the two ways of rendering them: text for people and JSON for
// programs.
//
// Every JSON document is one object with a schema_version, written alone on
// stdout, deterministic (fixed key order, sorted lists, no clock) so two
// runs can be diffed. A failure is reported the same way, as
// {"schema_version":1,"error":{"code":N,"message":"..."}}.
//
// The documents carry no credential by construction: a report names where
// a credential comes from and whether it is set, never its value, and
// endpoints are reduced to their host so userinfo in a URL cannot leak.
// The command layer only wires flags to these types.
package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/joshbot/joshbot/joshbot/internal/redact"
)

// SchemaVersion is the version of every JSON document this package writes.
// It changes only when a field is removed or changes meaning.
const SchemaVersion = 1

// Format is how a report is rendered.
type Format string

// The formats --output accepts.
const (
	Text Format = "text"
	JSON Format = "json"
)

// ParseFormat reads a --output value; empty means [Text].
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", Text:
		return Text, nil
	case JSON:
		return JSON, nil
	}
	return "", fmt.Errorf("--output %q: use text or json", s)
}

// Document is a report that can render itself as text. Its JSON form is
// its encoding/json encoding.
type Document interface {
	// WriteText writes the report for a person.
	WriteText(w io.Writer) error
}

// Write renders doc in format f on w. Text goes through the redacting
// writer; JSON documents carry no credential fields by construction and are
// encoded as they are, since the byte-stream redactor would break them.
func Write(w io.Writer, f Format, doc Document) error {
	if f == JSON {
		return writeJSON(w, doc)
	}
	rw := redact.NewWriter(w)
	if err := doc.WriteText(rw); err != nil {
		return err
	}
	return rw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// ErrorDoc is the JSON form of a command that failed before it had a report
// to give.
type ErrorDoc struct {
	SchemaVersion int       `json:"schema_version"`
	Error         ErrorBody `json:"error"`
}

// ErrorBody is the error member of an [ErrorDoc].
type ErrorBody struct {
	// Code is the process exit code.
	Code int `json:"code"`
	// Message explains the failure on one line.
	Message string `json:"message"`
}

// WriteError reports err in format f: as an [ErrorDoc] for JSON, as
// "joshbot: <message>" for text.
func WriteError(w io.Writer, f Format, code int, err error) error {
	if f == JSON {
		return writeJSON(w, ErrorDoc{SchemaVersion: SchemaVersion, Error: ErrorBody{Code: code, Message: redact.String(err.Error())}})
	}
	_, werr := fmt.Fprintf(w, "joshbot: %s\n", redact.String(err.Error()))
	return werr
}
