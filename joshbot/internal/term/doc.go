// Package term is the conversation of `joshbot agent` on a terminal or on
// piped input: one REPL turn loop for both, the line editor with its
// history and Tab completion, the key reader that shares standard input
// between the editor and the shell-approval prompt, and that prompt.
//
// The package knows nothing of the agent: a caller implements [Turner],
// which runs one turn for a line of text, and [Run] does the rest.
//
//	err := term.Run(ctx, turner, &term.Options{
//		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
//		Terminal: true, // both are a terminal
//		Prompt:   func() string { return "model> " },
//	})
//
// # Terminal and piped input
//
// With [Options.Terminal] each line is read in raw mode by the line
// editor; the terminal is put back in its normal mode while a turn runs,
// so Ctrl-C stops the answer and a shell approval ([Approver]) is typed as
// usual, and the answer streams through [Live]. On piped input lines are
// read plainly, shell commands needing approval are refused, and the first
// failed turn ends the conversation so a pipeline sees the exit code.
//
// # Raw mode and logging
//
// While the terminal is raw a bare "\n" does not return to the first
// column; [CRLFWriter] translates log output while [Options.Raw] is set.
package term
