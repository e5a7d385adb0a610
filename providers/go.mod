module github.com/joshbot/joshbot/providers

go 1.26
