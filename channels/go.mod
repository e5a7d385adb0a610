module github.com/joshbot/joshbot/channels

go 1.26

replace github.com/joshbot/joshbot/bus => ../bus

require (
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	gopkg.in/telebot.v3 v3.3.8
)
