// Package gateway runs joshbot's chat channels: it starts every adapter
// the config enables, passes their messages through the router
// (allowlists, dedup, durable inbox), runs a turn of the agent for each,
// and delivers the replies, the message tools' output and the scheduled
// jobs' results.
//
// The core speaks only the channels contract; surface.go is the one file
// that builds the platform adapters (Telegram, Discord, Slack, webhooks)
// from the config. Approvals a human grants "for the session" are kept by
// the [Gateway], for as long as it runs.
//
// # Quick start
//
//	rt, err := runtime.Load(ctx, &runtime.Options{..., WrapTools: runtime.ProgressTools})
//	if err != nil { ... }
//	defer rt.Close()
//	err = gateway.New(rt, &gateway.Options{Grace: 30 * time.Second}).Run(ctx)
package gateway
