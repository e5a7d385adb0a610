module github.com/joshbot/joshbot/mcpclient

go 1.26

replace github.com/joshbot/joshbot/sandbox => ../sandbox
