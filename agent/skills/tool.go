package skills

import "github.com/joshbot/joshbot/tools"

var _ tools.SkillLibrary = (*Library)(nil)

// SkillList implements tools.SkillLibrary.
func (l *Library) SkillList() ([]tools.SkillInfo, error) {
	list, err := l.List()
	if err != nil {
		return nil, err
	}
	out := make([]tools.SkillInfo, len(list))
	for i, s := range list {
		out[i] = tools.SkillInfo{Name: s.Name, Description: s.Description, Trusted: s.Trusted, Problem: s.Problem}
	}
	return out, nil
}

// LoadSkill implements tools.SkillLibrary.
func (l *Library) LoadSkill(name string) (string, error) { return l.Load(name) }

// WriteSkill implements tools.SkillLibrary.
func (l *Library) WriteSkill(name, content string) (string, error) { return l.Write(name, content) }
