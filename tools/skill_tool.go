package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// SkillInfo describes one skill to the model.
type SkillInfo struct {
	// Name is the skill's directory and frontmatter name.
	Name string
	// Description is the frontmatter's one-line summary.
	Description string
	// Trusted reports whether an operator approved the skill's current
	// content; only trusted skills can be loaded.
	Trusted bool
	// Problem says why the file is not a usable skill; empty when it is.
	Problem string
}

// SkillLibrary is what the skill tool needs from the skills store; the
// agent's skills package implements it. Anything written through it must
// be untrusted until an operator approves it.
type SkillLibrary interface {
	SkillList() ([]SkillInfo, error)
	LoadSkill(name string) (string, error)
	WriteSkill(name, content string) (path string, err error)
}

// RegisterSkills registers the skill tool on reg, backed by lib.
func RegisterSkills(reg *Registry, lib SkillLibrary) error {
	if reg == nil || lib == nil {
		return errors.New("tools: register skills: nil registry or library")
	}
	return reg.Register(&skillTool{lib: lib})
}

type skillTool struct{ lib SkillLibrary }

func (*skillTool) Name() string { return "skill" }
func (*skillTool) Description() string {
	return "Use and manage skills (reusable procedures). action=load with name returns a trusted skill's instructions: load one when a task matches its summary. " +
		"action=list shows every skill and whether it is trusted. action=write with name and content (a SKILL.md: frontmatter with name and description, then the steps) drafts or edits a skill; " +
		"a written skill stays unusable until the operator runs `joshbot skills trust <name>`, so tell the user."
}
func (*skillTool) Parameters() json.RawMessage {
	return skillSchema.get()
}

type skillArgs struct {
	Action  string `json:"action" schema:"enum=load|list|write"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content,omitempty" jsonschema:"the whole SKILL.md for write"`
}

var skillSchema = lazySchema{of: (*skillArgs)(nil)}

func (t *skillTool) Execute(_ context.Context, raw json.RawMessage) (string, error) {
	var a skillArgs
	if err := decodeArgs("skill", raw, &a); err != nil {
		return "", err
	}
	switch a.Action {
	case "load":
		if a.Name == "" {
			return "", missing("skill", "name")
		}
		return t.lib.LoadSkill(a.Name)
	case "list":
		list, err := t.lib.SkillList()
		if err != nil {
			return "", err
		}
		if len(list) == 0 {
			return "No skills exist yet.", nil
		}
		var b strings.Builder
		for _, s := range list {
			state := "trusted"
			switch {
			case s.Problem != "":
				state = "broken: " + s.Problem
			case !s.Trusted:
				state = "untrusted (awaiting `joshbot skills trust " + s.Name + "`)"
			}
			fmt.Fprintf(&b, "%s [%s]: %s\n", s.Name, state, s.Description)
		}
		return strings.TrimRight(b.String(), "\n"), nil
	case "write":
		if a.Name == "" {
			return "", missing("skill", "name")
		}
		if a.Content == "" {
			return "", missing("skill", "content")
		}
		p, err := t.lib.WriteSkill(a.Name, a.Content)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Wrote %s. It is untrusted and will not be used until the operator reviews it and runs `joshbot skills trust %s`.", p, a.Name), nil
	case "":
		return "", missing("skill", "action")
	default:
		return "", errorf("skill: action %q: use load, list or write", a.Action)
	}
}
