package release

import (
	"fmt"

	"golang.org/x/mod/semver"
)

// BumpAllowsBreak reports whether moving from old to neu permits an
// incompatible API change: a major bump, or a minor bump while the major
// version is 0.
func BumpAllowsBreak(old, neu string) bool {
	if semver.Compare(neu, old) <= 0 {
		return false
	}
	if semver.Major(neu) != semver.Major(old) {
		return true
	}
	return semver.Major(old) == "v0" && semver.MajorMinor(neu) != semver.MajorMinor(old)
}

// NextBreaking is the smallest version after v that permits an incompatible change.
func NextBreaking(v string) string {
	var maj, min, patch int
	fmt.Sscanf(semver.Canonical(v), "v%d.%d.%d", &maj, &min, &patch)
	if maj == 0 {
		return fmt.Sprintf("v0.%d.0", min+1)
	}
	return fmt.Sprintf("v%d.0.0", maj+1)
}
