// Package discord is the Discord adapter of the gateway, built on
// github.com/bwmarrin/discordgo. Of the optional abilities of the channel
// contract it has [channels.TypingIndicator] and [channels.CommandMenu].
//
// It holds one outbound gateway websocket (no inbound port, no public URL),
// normalizes each message into a [channels.Inbound] and hands it to the
// sink. Replies are split at Discord's 2,000 characters with
// [channels.Chunk] (code fences are kept whole where possible), threaded to
// the asking message, and posted with mentions disabled so a reply can
// never ping @everyone.
//
// # Quick start
//
//	dc, err := discord.New(&discord.Options{Token: token, SpoolDir: spool})
//	if err != nil { ... }           // names the Options field to fix
//	go dc.Start(ctx, router)        // router: a channels.Sink with Allowed
//	dc.Send(ctx, inb.Conversation, channels.Outbound{Text: answer, ReplyTo: inb.MessageID})
//
// # Identifiers
//
// Conversation is the Discord channel id (a DM channel, a guild text
// channel or a thread: threads are channels on Discord, so each is its own
// conversation). MessageID is the message snowflake, or the interaction id
// for a slash command. Principal is the user id, or "@username" when the
// sink's allowlist admits the sender only by name.
//
// # When the bot answers
//
// A direct message always triggers. In a guild a message triggers only when
// it mentions the bot (the message's mentions list holds the bot's user) or
// replies to one of the bot's messages (the referenced message's author is
// the bot), never from a substring of the text; or when its channel is in
// Options.RespondToAllChannels, where every message counts as addressed.
// The bot's own mention is removed from the text the agent sees.
//
// # Acknowledgement
//
// Discord's gateway has no per-message acknowledgement: an event is
// confirmed by the sequence number the client sends back, which discordgo
// advances before the adapter sees the event. So the adapter never lets an
// event go: a Deliver error is retried on a jittered backoff, holding
// further events back, until the sink records it or Start's context ends.
// After a dropped connection the session is resumed (RESUME with the last
// sequence), so the gateway replays what was missed and nothing is lost or
// doubled.
//
// # Catch-up after a restart
//
// A new gateway session (after a restart, or when a resume is refused)
// replays nothing. With Options.CursorFile set, the adapter remembers, for
// each conversation it answers in (up to 256, the least recently active
// forgotten first), the newest message it has handed over; when a new
// session is ready it fetches each conversation's history after that
// message and hands the missed messages over, oldest first and through
// the same gating as live ones, before any live event. Messages older than
// Options.CatchUpAge (a day by default) are skipped with a warning, and a
// conversation the bot can no longer read is forgotten. Overlap is
// harmless: live events at or before a conversation's cursor are dropped,
// and the sink drops message ids it has already recorded. A conversation
// the bot has never answered in has no cursor, so a first message sent
// while it is down is not found.
//
// # Allowlist and media
//
// A sink that implements [Allower] (channels.Router does) is asked before
// anything is spent on a sender: an unlisted sender's attachments are never
// downloaded and no reply is sent to them. Attachments of allowed senders
// are downloaded from Discord's CDN only (cdn.discordapp.com,
// media.discordapp.net), through a client that refuses private addresses,
// under [channels.MaxAttachmentBytes], into the spool.
//
// # Commands
//
// [Discord.SetCommands] ([channels.CommandMenu]) publishes the shared
// command table as global application commands, so "/" in Discord lists
// them; a menu set before the gateway connected is published when READY
// brings the application id, and descriptions over Discord's 100
// characters are shortened. A slash command is
// delivered as the text "/name args", exactly what a typed command would
// be, and answered in the channel like any other message.
package discord
