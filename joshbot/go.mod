module github.com/joshbot/joshbot/joshbot

go 1.26.0

replace (
	github.com/joshbot/joshbot/agent => ../agent
	github.com/joshbot/joshbot/apiserver => ../apiserver
	github.com/joshbot/joshbot/bus => ../bus
	github.com/joshbot/joshbot/channels => ../channels
	github.com/joshbot/joshbot/mcpclient => ../mcpclient
	github.com/joshbot/joshbot/memory => ../memory
	github.com/joshbot/joshbot/providers => ../providers
	github.com/joshbot/joshbot/sandbox => ../sandbox
	github.com/joshbot/joshbot/tools => ../tools
)

require (
	github.com/google/go-cmp v0.7.0
	github.com/joshbot/joshbot/agent v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/apiserver v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/bus v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/channels v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/mcpclient v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/memory v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/providers v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/sandbox v0.0.0-00010101000000-000000000000
	github.com/joshbot/joshbot/tools v0.0.0-00010101000000-000000000000
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/spf13/cobra v1.10.2
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
)

require (
	github.com/bwmarrin/discordgo v0.28.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/landlock-lsm/go-landlock v0.11.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	gopkg.in/telebot.v3 v3.3.8 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
