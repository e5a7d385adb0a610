// Package channeltest helps test code on both sides of the channel
// contract: [Run] is the conformance suite every [channels.Channel] adapter
// passes, in the spirit of testing/slogtest, and [NewFake] is an in-memory
// channel for testing the code that uses channels (the gateway), in the
// way go-sdk ships in-memory transports.
//
// # The fake channel
//
// A [Fake] implements [channels.Channel] and every optional ability
// ([channels.TypingIndicator], [channels.Streamer], [channels.Picker],
// [channels.CommandMenu], [channels.ApprovalPrompter]). It records what it
// is sent, and a test plays the people on the other side:
//
//   - [Fake.Inject] sends a message to the bot; Start hands it to its sink,
//     again after a refusal, and [Record.Delivered] lists what the sink
//     accepted;
//   - [PickerRecord.Pick] picks a choice, which arrives as a message;
//   - [StreamRecord.PressStop] presses a live reply's stop control;
//   - [ApprovalRecord.Answer] answers an approval prompt;
//   - [Fake.Disconnect] drops the connection.
//
// [Fake.Record] returns a snapshot of everything seen, and [Fake.Wait]
// (or [Fake.Await] in a test) blocks until a condition on it holds, woken
// by every change rather than by a timer. To test the path for a channel
// without the abilities, hide them: struct{ channels.Channel }{fake} has
// only the methods of the interface.
//
// The fake passes the conformance suite.
//
// # The conformance suite
//
// An adapter's tests implement [Platform] against a fake of their platform
// and call [Run], which checks the contract every adapter promises the
// gateway:
//
//   - a platform message is acknowledged only after Deliver returned nil,
//     and a Deliver error brings the same message back;
//   - a message delivered twice runs once through a [channels.Router];
//   - Send splits text at the platform's limit without losing a character;
//   - a sender outside the allowlist never reaches the handler;
//   - a dropped connection is reconnected without Start returning;
//   - Send is safe while Start runs, and Start returns ctx.Err() when its
//     context ends.
package channeltest
