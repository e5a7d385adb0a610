package runtime

import (
	"log/slog"
	"path/filepath"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/agent/skills"
	"github.com/joshbot/joshbot/tools"
)

// State files of the skills system, in the joshbot home: outside the
// workspace, which the model can write.
const (
	// SkillsTrustFile records which workspace skills the operator trusts.
	SkillsTrustFile   = "skills.trust"
	skillPatternsFile = "skill_patterns.json"
)

// registerSkills opens the workspace's skills, registers the skill tool and
// gives the agent the skill summaries and the detection hook.
func registerSkills(home, ws string, reg *tools.Registry, opts *agent.Options, log *slog.Logger) error {
	lib, err := skills.Open(ws, filepath.Join(home, SkillsTrustFile))
	if err != nil {
		return err
	}
	if err := tools.RegisterSkills(reg, lib); err != nil {
		return err
	}
	opts.Hooks.Skills = lib
	opts.Hooks.OnTurn = skills.NewDetector(lib, filepath.Join(home, skillPatternsFile), log).Observe
	return nil
}
