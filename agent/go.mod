module github.com/joshbot/joshbot/agent

go 1.26.0

replace (
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/providers => ../providers
	github.com/joshbot/joshbot/sandbox => ../sandbox
	github.com/joshbot/joshbot/tools => ../tools
)

require (
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/providers v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/tools v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/joshbot/joshbot/sandbox v0.0.0-00010101000000-000000000000 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/sys v0.50.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
