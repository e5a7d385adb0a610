// Package mcpclient hosts Model Context Protocol servers on behalf of an
// agent, safely enough that another Go program can import it for the same
// job.
//
// It will hold a stdio client built on the official MCP Go SDK that launches
// each configured server with the sandbox module's screened child
// environment, bounds the handshake, every call and every message, imports
// the advertised tools under server-scoped names, defangs server-supplied
// descriptions, and keeps every server inert until an operator trusts the
// exact manifest it advertises.
//
// This release defines the module and its place in the workspace; the client
// arrives in the MCP release.
package mcpclient
