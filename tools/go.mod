module github.com/joshbot/joshbot/tools

go 1.26

replace (
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/sandbox => ../sandbox
)

require (
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)
