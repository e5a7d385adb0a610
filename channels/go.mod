module github.com/joshbot/joshbot/channels

go 1.26

replace github.com/joshbot/joshbot/bus => ../bus
