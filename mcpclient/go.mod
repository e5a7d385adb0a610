module github.com/joshbot/joshbot/mcpclient

go 1.26.0

replace (
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/sandbox => ../sandbox
)

require (
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/sandbox v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
