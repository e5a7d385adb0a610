package output

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Format
		bad  bool
	}{
		{"", Text, false}, {"text", Text, false}, {"json", JSON, false}, {"JSON", "", true}, {"yaml", "", true},
	} {
		got, err := ParseFormat(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseFormat(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestWriteErrorForms(t *testing.T) {
	var b bytes.Buffer
	if err := WriteError(&b, JSON, 2, errors.New(`bad "thing" <here>`)); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"schema_version\": 1,\n  \"error\": {\n    \"code\": 2,\n    \"message\": \"bad \\\"thing\\\" <here>\"\n  }\n}\n"
	if b.String() != want {
		t.Errorf("json error =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteError(&b, Text, 1, errors.New("boom"))
	if b.String() != "joshbot: boom\n" {
		t.Errorf("text error = %q", b.String())
	}
}

func TestEmptyListsEncodeAsArrays(t *testing.T) {
	var b bytes.Buffer
	doc := &Preflight{SchemaVersion: SchemaVersion, Config: "~/.joshbot/config.json", Models: []PreflightModel{}, Problems: []Problem{}}
	if err := Write(&b, JSON, doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"models": []`) || !strings.Contains(b.String(), `"problems": []`) {
		t.Errorf("%s", b.String())
	}
	b.Reset()
	if err := Write(&b, Text, &ProfileList{Config: "c.json", Profiles: []ProfileItem{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "No profiles in c.json") {
		t.Errorf("%q", b.String())
	}
}
