module github.com/joshbot/joshbot/channels

go 1.26

replace github.com/joshbot/joshbot/bus => ../bus

require github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000

require gopkg.in/telebot.v3 v3.3.8 // indirect
