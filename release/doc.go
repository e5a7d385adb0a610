// Package release holds joshbot's publishing machinery: the versions file
// (versions.yaml at the repository root), the release command's steps
// (cmd/release), module zips in the layout the module proxy serves, and the
// exported-API snapshots (api/<module>.txt) with their guard. The module is
// never published.
//
// Its tests are what `make release-check` (part of `make test`) runs:
//
//   - TestVersionsFileListsEveryModule and TestGoLinesAgree: versions.yaml
//     names every go.mod, and every module declares go.work's go line.
//   - TestAPISnapshots: api/<module>.txt matches each module's exported API;
//     against the module's last tag, Guard refuses an incompatible change
//     without the minor bump v0 requires and an addition the CHANGELOG's
//     Unreleased section does not name.
//   - TestGuardCatchesRemovedMethod, TestGuardCatchesUnmentionedAddition:
//     the guard fed a deliberate removal and an unmentioned addition.
//   - TestReleaseInScratchClone: the release command in a clone produces the
//     tags, the rewritten require lines and the CHANGELOG headings.
//   - TestRehearsal: the modules zipped into a file-system proxy, one outside
//     program per module built and run with GOWORK=off and no replace (for
//     the joshbot module, its binary built as a tool dependency), and their
//     dependencies compared with testdata/deps/<module>.txt.
//
// `make api-update` re-records the snapshots and the dependency lists.
package release
