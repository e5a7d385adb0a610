module github.com/joshbot/joshbot/bus

go 1.26
