module github.com/joshbot/joshbot/channels

go 1.26.0

replace (
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/sandbox => ../sandbox
)

require (
	github.com/bwmarrin/discordgo v0.28.1
	github.com/gorilla/websocket v1.5.3
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/sandbox v0.0.0-00010101000000-000000000000
	github.com/yuin/goldmark v1.8.7
	go.uber.org/goleak v1.3.0
	gopkg.in/telebot.v3 v3.3.8
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
