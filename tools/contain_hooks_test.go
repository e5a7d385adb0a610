package tools

import "testing"

// contained returns the containment gate shared by the fixture's tools.
func (f *fsFixture) contained(t *testing.T) *contained {
	t.Helper()
	tl, ok := f.reg.Get("read_file")
	if !ok {
		t.Fatal("read_file not registered")
	}
	return tl.(*readFileTool).c
}
