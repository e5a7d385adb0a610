package agent

import "testing"

// The heuristic sends messages that may state something about the user
// and keeps back the ones that cannot; its misses are documented.
func TestWorthLearning(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"my dog is Rex", true},
		{"I'm vegetarian", true},
		{"We moved last year", true},
		{"please remember the wifi password is in the drawer", true},
		{"answers in metric, I prefer that", true},
		{"How far is Paris from Berlin?", true},
		{"call me Jo", true},
		{"hi", false},
		{"what is 2+2?", false},
		{"thanks!", false},
		{"Summarise this. Then translate it.", false},
		{"read a.txt and count its words", false},
		// A fact with no first person and no name is missed.
		{"the dog is three", false},
	} {
		if got := worthLearning(tt.text); got != tt.want {
			t.Errorf("worthLearning(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
