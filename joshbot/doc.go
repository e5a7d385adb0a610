// Package joshbot is the module of the joshbot binary: the command line
// (cmd/joshbot), the configuration, and the wiring that joins the agent,
// providers, tools, memory, channels and HTTP API modules into one program.
//
// It is the only module that knows every other one; everything it holds is
// under cmd/ and internal/, so its exported surface is this comment.
package joshbot
