module github.com/joshbot/joshbot/memory

go 1.26.0
