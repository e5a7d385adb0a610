module github.com/joshbot/joshbot/tools

go 1.26.0

require (
	github.com/joshbot/joshbot/sandbox v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.50.0
)

require (
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)

replace (
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/sandbox => ../sandbox
)

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	github.com/yuin/goldmark v1.8.7
	go.uber.org/goleak v1.3.0
)
