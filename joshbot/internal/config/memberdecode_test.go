package config

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/joshbot/joshbot/joshbot/internal/jsonkeys"
)

// Parse decodes member by member (jsonkeys.Decode) whenever it can, and
// the result is exactly what encoding/json's own strict decode gives, from
// a first-run config to one that sets every section; every document it
// declines is left to encoding/json, whose errors Parse reports.
func TestMemberDecodeIsEncodingJSONs(t *testing.T) {
	every, err := json.Marshal(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	taken := []string{
		`{}`, `null`, `{"schema_version":1}`, "\n{ \"agents\" : null }\n\t",
		`{"schema_version":1,"agents":{"defaults":{"provider":"custom","model":"bench","max_tool_iterations":50,"timeout":"2m0s","streaming":true}},` +
			`"providers":{"custom":{"api_base":"http://127.0.0.1:1/v1"}},"channels":{"telegram":{"enabled":false,"allow_from":[]}},"tools":{"shell_sandbox":"workspace"}}`,
		`{"models_config":{"agent":{"model":"a/b","fallbacks":[{"model":"x/y"}]}},"profiles":{"p":{"model":"openai/gpt-4o"}}}`,
		`{"agents":{"defaults":{"model":"a"}},"agents":{"defaults":{"temperature":0.5}}}`, // a repeated key merges
		`{"providers":{"a":{"api_key":"k\u00e9y \"q\""}},"providers":null}`,
		string(every),
	}
	if data, err := os.ReadFile("testdata/config.json"); err == nil {
		taken = append(taken, string(data))
	}
	declined := []string{
		`{"Agents":{}}`, ``, `[]`, `{"agents":{}} {}`, `{"agents":{}} x`, `{"agnets":{}}`, `{"agents":{"defaults":{"modle":"x"}}}`,
		`{"agents":{"defaults":{"max_tool_iterations":"50"}}}`, `{"agents":{"defaults":{"timeout":"soon"}}}`, `{"agents":"x"}`,
		`{"schema_version":1`, `{"providers":{"a":{"api_bse":"x"}}}`,
	}
	for i, doc := range append(taken, declined...) {
		fast := Defaults()
		ok := jsonkeys.Decode([]byte(doc), fast)
		slow := Defaults()
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.DisallowUnknownFields()
		slowErr := dec.Decode(slow)
		if slowErr == nil && dec.More() {
			slowErr = errTrailing
		}
		if wantTaken := i < len(taken); ok != wantTaken {
			t.Errorf("%.80s: member decode took it: %v, want %v", doc, ok, wantTaken)
		}
		if !ok {
			continue
		}
		if slowErr != nil {
			t.Errorf("%.80s: member decode took a document encoding/json refuses: %v", doc, slowErr)
		} else if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%.80s: member decode gives\n%+v\nencoding/json gives\n%+v", doc, fast, slow)
		}
	}
	// And Parse answers the declined ones as before: with an error.
	for _, doc := range declined[1:] {
		if _, err := Parse("c.json", []byte(doc)); err == nil {
			t.Errorf("Parse(%.80s) accepted it", doc)
		}
	}
}

var errTrailing = os.ErrInvalid
