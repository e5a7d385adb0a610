// Package channels connects chat platforms to the gateway.
//
// It will hold the adapter contract every surface implements (a normalized
// inbound message, the Channel interface, the Sink that records deliveries
// durably before the platform is acknowledged), the helpers every adapter
// shares (a loss-free chunker, a jittered reconnect backoff, an HTTP client
// that refuses private addresses, a content-addressed media spool), the
// Telegram and Discord adapters, and the gateway router with its allowlist,
// deduplication and durable inbox.
//
// This release defines the module and its place in the workspace; the
// contract and adapters arrive in the gateway release. Adapters import only
// the bus module, never the agent.
package channels
