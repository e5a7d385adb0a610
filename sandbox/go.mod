module github.com/joshbot/joshbot/sandbox

go 1.26
