package config

import (
	"strings"
	"testing"
)

func TestOwnerValidation(t *testing.T) {
	c := Defaults()
	c.Owner = Owner{Slack: []string{"*"}}
	if err := c.validateOwner(); err == nil || !strings.Contains(err.Error(), "owner.slack[0]") {
		t.Errorf("a wildcard owner: err = %v, want one naming owner.slack[0]", err)
	}
	c.Agents.Defaults.LearnScope = "everyone"
	if err := c.Agents.Defaults.validateMemory(); err == nil || !strings.Contains(err.Error(), `"person"`) {
		t.Errorf("bad learn_scope: err = %v, want the choices including \"person\"", err)
	}
}
