module github.com/joshbot/joshbot/sandbox

go 1.26.0

require (
	github.com/landlock-lsm/go-landlock v0.11.2
	golang.org/x/sys v0.50.0
	mvdan.cc/sh/v3 v3.14.1
)

require kernel.org/pub/linux/libs/security/libcap/psx v1.2.78 // indirect
