package cmdutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/output"
)

// TestFail checks that a JSON report's failure is a document on stdout
// and exit code 1, and a text report's failure is the error itself.
func TestFail(t *testing.T) {
	var out bytes.Buffer
	s := &Streams{Out: &out}
	boom := errors.New("no config file at ~/x")
	if err := Fail(s, output.Text, boom); err != boom || out.Len() != 0 {
		t.Fatalf("text: %v, wrote %q", err, out.String())
	}
	var ee ExitError
	if err := Fail(s, output.JSON, boom); !errors.As(err, &ee) || ee.Code != 1 {
		t.Fatalf("json: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("json: stdout is not one document: %v\n%s", err, out.String())
	}
	if !bytes.Contains(out.Bytes(), []byte("no config file at ~/x")) {
		t.Fatalf("json: the error is not in the document: %s", out.String())
	}
}
