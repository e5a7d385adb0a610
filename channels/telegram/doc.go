// Package telegram is the Telegram adapter of the gateway, built on
// gopkg.in/telebot.v3.
//
// It long-polls the Bot API (no inbound port, no webhook), normalizes each
// update into a [channels.Inbound] and acknowledges it only after the sink
// recorded it. Replies are authored as Markdown and sent as Telegram HTML,
// split at 4,096 characters with [channels.Chunk], threaded to the asking
// message, and resent as plain text when Telegram refuses the markup.
//
// # Quick start
//
//	tg, err := telegram.New(&telegram.Options{Token: token, SpoolDir: spool})
//	if err != nil { ... }           // names the Options field to fix
//	go tg.Start(ctx, router)        // router: a channels.Sink with Allowed
//	tg.Send(ctx, inb.Conversation, channels.Outbound{Text: answer, ReplyTo: inb.MessageID})
//
// # Identifiers
//
// Conversation is the chat id, or "<chat id>:<topic id>" inside a forum
// topic. MessageID is "<update id>:<message id>": the update id keeps it
// unique and stable across redeliveries (the router deduplicates on it),
// and the message id lets Outbound.ReplyTo thread the answer. Principal is
// the numeric user id, or "@handle" when the sink's allowlist admits the
// sender only by handle, so an allow_from written either way matches. A
// leading "/command@<bot name>" (what the group menu inserts) is delivered
// as "/command", so commands read the same in groups and private chats.
//
// # Allowlist
//
// A sink that implements [Allower] (channels.Router does) is asked before
// anything is spent on a sender: an unlisted sender's media is never
// downloaded, no direct reply is sent to them and their button presses are
// ignored. Their text still goes to Deliver, which logs and drops it.
//
// # Turn affordances
//
// The adapter has every optional ability of the channel contract. The
// gateway drives one turn with [Telegram.Typing] (kept alive every four
// seconds, always stopped), [Telegram.StartStream] (a live status line and
// a growing answer edited at most every three seconds, or a native draft in
// private chats with Options.StreamDrafts, with a ⏹ Stop button that
// cancels the turn from the poller goroutine), [Telegram.SendPicker]
// (inline keyboards whose press is delivered as the command text),
// [Telegram.Approve] (Allow / Deny buttons bound to the chat and request)
// and [Telegram.SetCommands] (the command menu). The types they take are
// the channels package's; the old names here (Choice, Command, Decision,
// StreamOptions) are deprecated aliases of them.
//
// Package telegramtest runs the telegram-test-api emulator these tests,
// and the gateway's, drive end to end. Reactions (👀 on accept,
// 👍 on reply) are set automatically when Options.Reactions is on.
//
// # Media
//
// Photos and PDFs are saved to the spool after the allowlist check and a
// declared-size check, read through a cap so an under-declared size is
// refused rather than truncated. Text documents are inlined up to 64 KiB
// with a visible truncation marker, binary content is refused by its bytes,
// Office files are refused with the list of what is supported, stickers
// are ignored, and voice, audio and video get an honest reply with no
// model turn unless a [Transcriber] is configured (a caption is forwarded,
// framed so the model knows what it cannot perceive). Edited messages are
// forwarded as corrections.
package telegram
