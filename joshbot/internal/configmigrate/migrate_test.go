package configmigrate

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The synthetic layouts below stand in for future ones: version 1 had
// "agent" at the top, version 2 renamed it "agents", version 3 turned a
// timeout in seconds into a duration string.
var testSteps = map[int]Step{
	1: func(doc map[string]json.RawMessage) error {
		if v, ok := doc["agent"]; ok {
			doc["agents"] = v
			delete(doc, "agent")
		}
		return nil
	},
	2: func(doc map[string]json.RawMessage) error {
		raw, ok := doc["agents"]
		if !ok {
			return nil
		}
		var a map[string]map[string]any
		if err := json.Unmarshal(raw, &a); err != nil {
			return err
		}
		if secs, ok := a["defaults"]["timeout_seconds"].(float64); ok {
			a["defaults"]["timeout"] = fmt.Sprintf("%gs", secs)
			delete(a["defaults"], "timeout_seconds")
		}
		b, err := json.Marshal(a)
		doc["agents"] = b
		return err
	},
}

func TestMigrationSteps(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		target  int
		want    string // the upgraded agents block, compact
		wantVer int
	}{
		{name: "step 1 to 2 renames agent", in: `{"schema_version":1,"agent":{"defaults":{"model":"m"}}}`, target: 2,
			want: `{"defaults":{"model":"m"}}`, wantVer: 2},
		{name: "step 2 to 3 converts seconds", in: `{"schema_version":2,"agents":{"defaults":{"timeout_seconds":90}}}`, target: 3,
			want: `{"defaults":{"timeout":"90s"}}`, wantVer: 3},
		{name: "1 to 3 runs both in order", in: `{"schema_version":1,"agent":{"defaults":{"timeout_seconds":30}}}`, target: 3,
			want: `{"defaults":{"timeout":"30s"}}`, wantVer: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, from, err := Upgrade([]byte(tt.in), tt.target, testSteps)
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("upgraded document does not parse: %v\n%s", err, out)
			}
			var ver int
			json.Unmarshal(doc["schema_version"], &ver)
			var agents any
			json.Unmarshal(doc["agents"], &agents)
			got, _ := json.Marshal(agents)
			if ver != tt.wantVer || string(got) != tt.want {
				t.Fatalf("version %d agents %s, want %d %s", ver, got, tt.wantVer, tt.want)
			}
			if _, ok := doc["agent"]; ok {
				t.Fatal("the old key survived")
			}
			var in struct {
				SchemaVersion int `json:"schema_version"`
			}
			json.Unmarshal([]byte(tt.in), &in)
			if from != in.SchemaVersion {
				t.Fatalf("from = %d, want %d", from, in.SchemaVersion)
			}
		})
	}
}

func TestMigrateLeavesOthersUntouched(t *testing.T) {
	for _, in := range []string{
		`{"schema_version":3,"agents":{}}`, // current
		`{"schema_version":9}`,             // newer: Validate says upgrade joshbot
		`{"agents":{}}`,                    // missing: Validate names the key
		`{"schema_version":1,`,             // broken: the decoder gives line and column
	} {
		out, _, err := Upgrade([]byte(in), 3, testSteps)
		if err != nil || string(out) != in {
			t.Errorf("Upgrade(%s) = %s, %v; want it unchanged", in, out, err)
		}
	}
}

func TestMissingStepIsAnError(t *testing.T) {
	_, _, err := Upgrade([]byte(`{"schema_version":1}`), 3, map[int]Step{1: testSteps[1]})
	if err == nil || err.Error() != "schema_version 1 cannot be upgraded: this build has no migration from version 2 to 3" {
		t.Fatalf("err = %v", err)
	}
}

// TestTopVersionAgreesWithEncodingJSON checks that whenever topVersion
// names a version, encoding/json reads the same one from a valid
// document, and that it declines what it cannot read as encoding/json
// would.
func TestTopVersionAgreesWithEncodingJSON(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{`{"schema_version":1}`, 1, true},
		{` { "agents" : {"a":[1,{"b":"}\"]"}],"c":null} , "schema_version" : 12 , "x":"y" } `, 12, true},
		{`{"schema_version":1,"Schema_Version":4}`, 4, true}, // encoding/json: any letter case, last wins
		{`{"schema_version":2,"tools":{"schema_version":9}}`, 2, true},
		{`{"s":"a\\","schema_version":3}`, 3, true},
		{`{"schema\u005fversion":3}`, 0, false}, // an escape in a key
		{`{"ſchema_version":3}`, 0, false},      // encoding/json folds ſ to s
		{`{"schema_version":3.0}`, 0, false},
		{`{"schema_version":-1}`, 0, false},
		{`{"schema_version":"3"}`, 0, false},
		{`{"agents":{}}`, 0, false},
		{`{}`, 0, false},
		{`[1]`, 0, false},
		{`{"schema_version":1,`, 0, false},
		{`{"schema_version":99999999999999999999}`, 0, false},
	} {
		got, ok := topVersion([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("topVersion(%s) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		var head struct {
			SchemaVersion int `json:"schema_version"`
		}
		if ok && json.Unmarshal([]byte(tt.in), &head) == nil && head.SchemaVersion != got {
			t.Errorf("topVersion(%s) = %d, encoding/json reads %d", tt.in, got, head.SchemaVersion)
		}
	}
}

// FuzzTopVersion checks on any input that a version topVersion names is
// the one encoding/json reads when the document is valid.
func FuzzTopVersion(f *testing.F) {
	f.Add(`{"schema_version":1,"agents":{"defaults":{"model":"m"}}}`)
	f.Add(`{"a":"\"}","SCHEMA_VERSION":2}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := topVersion([]byte(in))
		if !ok {
			return
		}
		var head struct {
			SchemaVersion int `json:"schema_version"`
		}
		if json.Unmarshal([]byte(in), &head) == nil && head.SchemaVersion != got {
			t.Fatalf("topVersion(%q) = %d, encoding/json reads %d", in, got, head.SchemaVersion)
		}
	})
}
