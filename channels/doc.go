// Package channels connects chat platforms to the gateway.
//
// It defines the contract every surface implements: a platform's message is
// normalized into an [Inbound], handed to the gateway's [Sink], and only
// acknowledged to the platform once the sink has recorded it durably;
// replies come back through [Channel.Send]. Keeping the contract this thin is
// what lets a new surface be one more adapter rather than a new subsystem.
//
// # Optional abilities
//
// Beyond Channel, an adapter may offer what a live turn uses, each a small
// interface the gateway discovers with a type assertion and does without
// when it is missing:
//
//   - [TypingIndicator]: a "typing…" indicator while the turn runs;
//   - [Streamer]: a live reply ([Stream]) edited in place as the answer
//     grows, with a stop control that cancels the turn;
//   - [Picker]: [Choice] buttons whose pick comes back as a message;
//   - [CommandMenu]: the list of slash [Command]s the platform offers;
//   - [ApprovalPrompter]: a prompt answered with a [Decision] (allow once,
//     allow for the session, deny), denying when no answer comes.
//
// Telegram has all of them, Discord typing and the command menu, Slack and
// the webhook receiver none. The types are channel-neutral, so the gateway
// names no adapter; channeltest.NewFake has every ability for its tests.
//
// # Shared helpers
//
// Every adapter uses the same pieces so that no side path diverges:
//
//   - [Chunk] is the one splitter of outbound text: loss-free, preferring
//     breaks outside code fences and at line ends.
//   - [Backoff] and [Jitter] pace reconnects so a flaky platform never
//     takes the gateway down and gateways never retry in lockstep.
//   - [SafeHTTPClient] fetches URLs that came from a message without ever
//     reaching a private address, through the one outbound address guard,
//     package github.com/joshbot/joshbot/sandbox/egress; [HostAllowed]
//     gates a credential to first-party hosts.
//   - [SaveToSpool] and [ResolveSpoolID] keep inbound media in a
//     content-addressed spool that is the trust boundary: ids cross process
//     boundaries, paths never do.
//
// The Telegram, Discord and Slack adapters, the signed webhook receiver and
// the gateway router (allowlist, deduplication, durable inbox) build on this
// contract. channeltest holds the conformance suite every adapter passes and
// the in-memory fake channel; telegram/telegramtest runs the Telegram Bot
// API emulator. Adapters import only the bus module, never the agent.
package channels
