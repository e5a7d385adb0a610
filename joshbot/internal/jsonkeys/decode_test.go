package jsonkeys

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type stamp struct{ at time.Time }

func (s *stamp) UnmarshalJSON(b []byte) error { return s.at.UnmarshalJSON(b) }

type member struct {
	N     int            `json:"n"`
	Tags  []string       `json:"tags,omitempty"`
	Deep  *member        `json:"deep"`
	Attrs map[string]any `json:"attrs"`
}

type named string

type outer struct {
	Flag    bool              `json:"flag"`
	Small   int8              `json:"small"`
	Count   uint16            `json:"count"`
	Ratio   float32           `json:"ratio"`
	Big     float64           `json:"big"`
	Named   named             `json:"named"`
	Num     json.Number       `json:"num"`
	Any     any               `json:"any"`
	Name    string            `json:"name"`
	Plain   int               // matched by its Go name
	In      member            `json:"in"`
	Ptr     *member           `json:"ptr"`
	ByName  map[string]member `json:"by_name"`
	When    stamp             `json:"when"`
	Dur     time.Duration     `json:"dur"`
	Skipped int               `json:"-"`
	Quoted  int               `json:"quoted,string"`
	secret  int
}

type withEmbedded struct {
	member
	X int `json:"x"`
}

// Decode takes what it can walk and gives what encoding/json gives; it
// declines (false) the rest, which encoding/json then decodes or refuses.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	_ = outer{secret: 0} // an unexported field, which no key may reach
	taken := []string{
		`{}`, `null`, ` {"name":"a"} `, `{"Plain":3}`, `{"in":{"n":1,"tags":["x"],"deep":{"n":2}},"in":{"attrs":{"k":[1,"2",null]}}}`,
		`{"ptr":{"n":5},"by_name":{"a":{"n":1}},"when":"2026-01-02T03:04:05Z","dur":7}`, `{"in":null,"ptr":null}`,
		`{"name":"\u00e9\"<>&\n"}`,
		`{"flag":true,"small":-128,"count":65535,"ratio":1.5e3,"big":-0.000001,"named":"x","num":12.50,"any":{"a":[1,2.5]}}`,
		`{"flag":null,"small":null,"name":null,"ratio":3.4e38,"big":1e308,"Plain":-0}`,
	}
	declined := []string{
		``, `[]`, `{"name":1}`, `{"Name":"a"}`, `{"plain":3}`, `{"nope":1}`, `{"in":{"nope":1}}`, `{"in":[]}`, `{"-":1}`, `{"Skipped":1}`,
		`{"quoted":"1"}`, `{"small":128}`, `{"small":1.0}`, `{"small":1e2}`, `{"count":-1}`, `{"ratio":3.5e38}`, `{"flag":"true"}`,
		`{"name":true}`, `{"name":1}`, `{"flag":1}`, `{"Plain":[]}`, `{"Plain":"1"}`, `{"num":"x"}`, `{"secret":1}`, `{"name":"a"} {}`, `{"name":"a"`, `{"by_name":{"a":{"x":1}}}`,
	}
	for i, doc := range append(taken, declined...) {
		var fast, slow outer
		ok := Decode([]byte(doc), &fast)
		if want := i < len(taken); ok != want {
			t.Errorf("%s: taken %v, want %v", doc, ok, want)
			continue
		}
		if !ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&slow); err != nil {
			t.Errorf("%s: encoding/json refuses it: %v", doc, err)
		} else if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: Decode gives %+v, encoding/json %+v", doc, fast, slow)
		}
	}
	var e withEmbedded
	if Decode([]byte(`{"x":1}`), &e) {
		t.Error("a struct with an embedded field was walked")
	}
	var notStruct map[string]int
	if Decode([]byte(`{}`), &notStruct) {
		t.Error("a map was walked")
	}
}
