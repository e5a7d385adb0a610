package apiserver

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestPackageDoc fails when the package loses its doc comment, which is the
// only place a reader learns what this module is for.
func TestPackageDoc(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil || !strings.HasPrefix(f.Doc.Text(), "Package apiserver ") {
		t.Fatalf("doc.go must open with a package comment starting %q", "Package apiserver ")
	}
}
