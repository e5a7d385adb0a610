// Package docscheck is the documentation drift check behind `joshbot docs
// check`: a bounded subagent that can only read a source tree compares
// what the code and config do with what README.md, docs/ and the skills
// say, and [Check] writes its evidenced findings as a propose-only report
// in the workspace.
//
//	rep, err := docscheck.Check(ctx, &docscheck.Options{
//		Root: ".", Workspace: ws, Provider: chain, Model: "gpt-4o",
//	})
//
// The checker changes nothing but the report: its tools are read_file,
// list_dir, glob and grep confined to the root, its conversation lives in
// a scratch store that is removed afterwards, and a finding citing no file
// under the root is dropped. Given [Options].Shell, it may also run
// verification commands a human approves ([Options].Approver); a finding
// may cite a command that ran, and the report quotes its real output.
package docscheck
