package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/joshbot/joshbot/bus"
	"github.com/joshbot/joshbot/sandbox"
)

// profileStore is the binary's config at its boundary: a view holding
// agents.profiles, and Set applying agents.profiles.<name> writes to it
// (null deletes), refusing every other key as the allowlist does.
type profileStore struct {
	profiles map[string]json.RawMessage
	sets     []string
}

func (s *profileStore) View(context.Context) (any, error) {
	return map[string]any{"agents": map[string]any{"profiles": s.profiles}}, nil
}

func (s *profileStore) Set(_ context.Context, key, value string) (string, error) {
	name, ok := strings.CutPrefix(key, "agents.profiles.")
	if !ok {
		return "", fmt.Errorf("%s cannot be changed from a conversation", key)
	}
	s.sets = append(s.sets, key+"="+value)
	if value == "null" {
		delete(s.profiles, name)
	} else {
		s.profiles[name] = json.RawMessage(value)
	}
	return key + " set", nil
}

type recordOutbox struct{ msgs []string }

func (o *recordOutbox) PublishOutbound(_ context.Context, m bus.Outbound) error {
	o.msgs = append(o.msgs, m.Text)
	return nil
}

func TestSubagentProfilesTool(t *testing.T) {
	store := &profileStore{profiles: map[string]json.RawMessage{
		"coder": json.RawMessage(`{"description":"writes code","model":"m1","tools":["read_file","shell"]}`),
	}}
	out := &recordOutbox{}
	reg := NewRegistry()
	if err := RegisterSubagentProfiles(reg, store, out, "agents.profiles"); err != nil {
		t.Fatal(err)
	}
	yes, no := &asked{d: sandbox.Allow}, &asked{d: sandbox.Deny}
	human := sandbox.WithApprover(WithRecipient(context.Background(), Recipient{Channel: "cli", ChatID: "c"}), yes)
	call := func(ctx context.Context, a args) (string, error) {
		return reg.Execute(ctx, "subagent_profiles", raw(a))
	}

	// Reads need nobody.
	got, err := call(context.Background(), args{"operation": "list"})
	if err != nil || got != "- coder: writes code\n" {
		t.Fatalf("list: %q, %v", got, err)
	}
	got, err = call(context.Background(), args{"operation": "show", "name": "coder"})
	if err != nil || !strings.Contains(got, `"model": "m1"`) || !strings.Contains(got, `"shell"`) {
		t.Fatalf("show: %q, %v", got, err)
	}

	// Create, with a human's approval: written through the allowlisted key.
	_, err = call(human, args{"operation": "create", "name": "researcher", "description": "reads papers", "tools": []string{"web_search"}, "max_iterations": 8})
	if err != nil || yes.count() != 1 || !strings.Contains(yes.reqs[0].Command, "create subagent profile researcher") {
		t.Fatalf("create: %v, asked %d", err, yes.count())
	}
	if want := `agents.profiles.researcher={"description":"reads papers","tools":["web_search"],"max_iterations":8}`; store.sets[0] != want {
		t.Fatalf("create wrote %s, want %s", store.sets[0], want)
	}
	if len(out.msgs) != 1 || !strings.Contains(out.msgs[0], "Config changed: agents.profiles.researcher set") {
		t.Fatalf("change notices: %q", out.msgs)
	}

	// Edit keeps what it does not name.
	if _, err := call(human, args{"operation": "edit", "name": "coder", "model": "m2"}); err != nil {
		t.Fatal(err)
	}
	if want := `agents.profiles.coder={"description":"writes code","model":"m2","tools":["read_file","shell"]}`; store.sets[1] != want {
		t.Fatalf("edit wrote %s, want %s", store.sets[1], want)
	}

	// Delete.
	if _, err := call(human, args{"operation": "delete", "name": "researcher"}); err != nil || store.sets[2] != "agents.profiles.researcher=null" {
		t.Fatalf("delete: %v, %q", err, store.sets)
	}
	if _, ok := store.profiles["researcher"]; ok {
		t.Fatal("researcher still there")
	}

	// Writes without a human, or with one who says no, are refused and
	// change nothing.
	before := len(store.sets)
	for _, c := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"no approver", context.Background(), "no human could approve it"},
		{"human denies", sandbox.WithApprover(context.Background(), no), "the human denied it"},
	} {
		for _, a := range []args{
			{"operation": "create", "name": "x", "description": "y"},
			{"operation": "edit", "name": "coder", "prompt": "obey"},
			{"operation": "delete", "name": "coder"},
		} {
			_, err := call(c.ctx, a)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not changed") {
				t.Errorf("%s, %v: %v", c.name, a["operation"], err)
			}
		}
	}
	if len(store.sets) != before {
		t.Fatalf("a refused write reached the config: %q", store.sets[before:])
	}

	// Validation errors, none of which asks anyone.
	asks := yes.count()
	var ae *ArgumentError
	for _, c := range []struct {
		a    args
		want string
	}{
		{args{"operation": "rename"}, `"operation" must be one of`},
		{args{"operation": "show"}, `missing required argument "name"`},
		{args{"operation": "show", "name": "nobody"}, `no profile "nobody"; the profiles are: coder`},
		{args{"operation": "create", "name": "coder", "description": "again"}, "already exists"},
		{args{"operation": "create", "name": "new"}, `missing required argument "description"`},
		{args{"operation": "create", "name": "a b", "description": "d"}, `"name" must be 1 to 40 letters`},
		{args{"operation": "create", "name": "new", "description": "d", "max_iterations": 500}, `"max_iterations" must be an integer from 0 to 200`},
		{args{"operation": "edit", "name": "coder"}, "changes nothing"},
		{args{"operation": "delete", "name": "ghost"}, `no profile "ghost"`},
	} {
		_, err := call(human, c.a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.a, err, c.want)
		}
		if strings.Contains(c.want, "must be") && !errors.As(err, &ae) {
			t.Errorf("%v: not an ArgumentError: %v", c.a, err)
		}
	}
	if yes.count() != asks || len(store.sets) != before {
		t.Fatal("an invalid call asked the human or wrote")
	}

	// In a tainted turn the gate asks once; the tool does not ask again.
	taint := &Taint{}
	taint.Mark("web_fetch")
	asks = yes.count()
	if _, err := call(WithTaint(human, taint), args{"operation": "edit", "name": "coder", "prompt": "be brief"}); err != nil || yes.count() != asks+1 {
		t.Fatalf("tainted edit: %v, asked %d times", err, yes.count()-asks)
	}
}
