// Package runtime builds the parts one joshbot process needs to hold
// conversations, from the config: the provider chain, the tool registry
// (filesystem, shell in its sandbox, web, memory, cron, messaging,
// skills, subagents, MCP servers' tools), the session store and long-term
// memory, the incident log, and the agent over all of them.
//
// # Quick start
//
//	rt, err := runtime.Load(ctx, &runtime.Options{ConfigPath: p, Home: filepath.Dir(p)})
//	if err != nil { ... }
//	defer rt.Close()
//	reply, err := rt.Agent.Process(ctx, agent.Request{SessionKey: "cli:default", Text: "hi", Channel: "cli"})
//	rt.Drain(ctx) // learning and compaction after the reply
//
// Every choice a command makes about the runtime (tools that report
// progress) and every test seam (the sandbox constructor, the
// Copilot token URL) is an [Options] field; nothing is read from package
// variables.
package runtime
