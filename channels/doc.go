// Package channels connects chat platforms to the gateway.
//
// It defines the contract every surface implements: a platform's message is
// normalized into an [Inbound], handed to the gateway's [Sink], and only
// acknowledged to the platform once the sink has recorded it durably;
// replies come back through [Channel.Send]. Keeping the contract this thin is
// what lets a new surface be one more adapter rather than a new subsystem.
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
//     reaching a private address; [HostAllowed] gates a credential to
//     first-party hosts.
//   - [SaveToSpool] and [ResolveSpoolID] keep inbound media in a
//     content-addressed spool that is the trust boundary: ids cross process
//     boundaries, paths never do.
//
// The Telegram, Discord and Slack adapters, the signed webhook receiver and
// the gateway router (allowlist, deduplication, durable inbox) build on this
// contract, and channeltest is the conformance suite every adapter passes. Adapters import only
// the bus module, never the agent.
package channels
