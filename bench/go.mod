module github.com/joshbot/joshbot/bench

go 1.26

replace github.com/joshbot/joshbot/providers => ../providers

require github.com/joshbot/joshbot/providers v0.0.0-00010101000000-000000000000
