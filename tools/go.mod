module github.com/joshbot/joshbot/tools

go 1.26

replace (
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/sandbox => ../sandbox
)
