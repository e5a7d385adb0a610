module github.com/joshbot/joshbot/apiserver

go 1.26
