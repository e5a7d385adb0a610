package telegram_test

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/joshbot/joshbot/channels/telegram"
)

// The long poll's body is built by hand; it must be byte for byte what
// encoding/json makes of the parameters it replaced.
func TestGetUpdatesBodyIsWhatEncodingJSONWrites(t *testing.T) {
	type params struct {
		Offset         int      `json:"offset"`
		Timeout        int      `json:"timeout"`
		AllowedUpdates []string `json:"allowed_updates"`
	}
	for _, c := range [][2]int{{0, 30}, {1, 0}, {-1, 1}, {9, 10}, {10, 99}, {123456789, 50}, {math.MaxInt, math.MinInt}, {math.MinInt, math.MaxInt}} {
		want, err := json.Marshal(params{c[0], c[1], []string{"message", "edited_message", "callback_query"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := telegram.GetUpdatesBody(c[0], c[1]); !bytes.Equal(got, want) {
			t.Errorf("body(%d, %d) = %s, want %s", c[0], c[1], got, want)
		}
	}
}

// A reply recognised as a quiet poll without encoding/json must be one
// encoding/json reads as success with an empty list; anything else is left
// to encoding/json.
func TestEmptyResultOnlyRecognisesSuccessWithNoUpdates(t *testing.T) {
	for _, tt := range []struct {
		body string
		want bool
	}{
		{`{"ok":true,"result":[]}`, true},
		{"{\"ok\":true,\"result\":[]}\n", true},
		{" { \"ok\" :\ttrue ,\r\n\"result\": [ ] } ", true},
		{`{"result":[],"ok":true}`, true},
		{`{"ok":false,"result":[]}`, false},
		{`{"ok":true,"result":[1]}`, false},
		{`{"ok":true,"result":[],"x":1}`, false},
		{`{"ok":true,"result":[]}x`, false},
		{`{"ok":truex,"result":[]}`, false},
		{`{"ok":true}`, false},
		{`{"o k":true,"result":[]}`, false},
		{`{"ok":true,"result":[]`, false},
		{``, false},
		{`{"ok":true,"error_code":0,"result":[]}`, false}, // equivalent, but left to encoding/json
	} {
		got := telegram.EmptyResult([]byte(tt.body))
		if got != tt.want {
			t.Errorf("EmptyResult(%q) = %v, want %v", tt.body, got, tt.want)
		}
		if !got {
			continue
		}
		var env struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		}
		var list []json.RawMessage
		if err := json.Unmarshal([]byte(tt.body), &env); err != nil || !env.OK || json.Unmarshal(env.Result, &list) != nil || len(list) != 0 {
			t.Errorf("EmptyResult(%q) = true, but encoding/json reads ok=%v result=%s (err %v)", tt.body, env.OK, env.Result, err)
		}
	}
}
