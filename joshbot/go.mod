module github.com/joshbot/joshbot/joshbot

go 1.26

replace (
	github.com/joshbot/joshbot/agent => ../agent
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/providers => ../providers
	github.com/joshbot/joshbot/channels => ../channels
	github.com/joshbot/joshbot/sandbox => ../sandbox
	github.com/joshbot/joshbot/mcpclient => ../mcpclient
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/apiserver => ../apiserver
	github.com/joshbot/joshbot/tools => ../tools
)
