// Package soaktest holds process-level fault tests of the joshbot binary:
// it builds the binary with `go build` into a temporary directory and
// drives it from outside, as an operator's supervisor would, killing it
// with SIGKILL at random points and checking what the users saw.
//
// The Telegram gateway soak runs the gateway against
// channels/telegram/telegramtest.BotAPI, a fake Bot API with real offset
// semantics (an update stays queued until a later getUpdates confirms
// it), so a kill shows exactly what Telegram would redeliver. The model is
// providers/providertest's scripted server. The package has no non-test
// code; it exists for its tests.
package soaktest
