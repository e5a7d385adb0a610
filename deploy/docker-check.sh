#!/usr/bin/env bash
# docker-check.sh: build the Dockerfile's two targets (default and minimal) for real and verify
# the images: version, non-root user, static binary, state written to the /data volume by the
# unprivileged user, and size. Prints every check and exits non-zero when any fails.
#
#   deploy/docker-check.sh            (or: make docker-check)
#
# Base images: GO_IMAGE (default golang:1.26) and RUNTIME_IMAGE (default alpine:3.20) are used
# when the engine has them or can pull them. When it cannot (no registry access), local
# stand-ins are built and passed to the build as --build-arg, and the report says so:
#   - for GO_IMAGE: Debian bookworm (debootstrap --variant=minbase, with ca-certificates) plus
#     the host's Go toolchain (`go env GOROOT`) at /usr/local/go, as in the official image;
#   - for RUNTIME_IMAGE: a root file system of Debian's busybox-static (Alpine's userland is
#     BusyBox too) with /etc/passwd and /etc/group.
# Needs debootstrap and apt-get (Debian/Ubuntu) only in that case.
#
# Engine: the one `docker info` reaches. When none answers and this runs as root where dockerd
# is installed (Debian: apt-get install docker.io), a private dockerd is started with its own
# socket and data root under $WORK and stopped on exit.
#
# Environment:
#   DOCKER             docker CLI to run (default: docker)
#   GO_IMAGE           build stage base (default: golang:1.26)
#   RUNTIME_IMAGE      default target's base (default: alpine:3.20)
#   MODULES            where the build stage gets Go modules:
#                        host     the host's module cache (filled by `go list -deps` on the host),
#                                 served on 127.0.0.1 and passed as --build-arg GOPROXY, with the
#                                 build on --network=host. Needs nothing from the container's
#                                 network and no trust of this network's TLS set-up.
#                        network  the build stage fetches them itself (Go's default proxy, or
#                                 $GOPROXY when set).
#                      default: network when GOPROXY is set or the engine is not local to a Linux
#                      host with Go, else host
#   GOPROXY            passed to the build as --build-arg (MODULES=network)
#   DOCKER_BUILD_FLAGS extra `docker build` flags, split on spaces (e.g. --network=host)
#   WORK               scratch and cache directory (default: /tmp/joshbot-docker-check);
#                      the Debian root file system is cached there between runs
#   MAX_IMAGE_MB       largest acceptable image, in MB (default: 100)
#   KEEP_IMAGES=1      keep the joshbot-check:* images afterwards
set -uo pipefail

DOCKER=${DOCKER:-docker}
GO_IMAGE=${GO_IMAGE:-golang:1.26}
RUNTIME_IMAGE=${RUNTIME_IMAGE:-alpine:3.20}
WORK=${WORK:-/tmp/joshbot-docker-check}
MAX_IMAGE_MB=${MAX_IMAGE_MB:-100}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VERSION=$(git -C "$ROOT" describe --tags --always --dirty 2>/dev/null || echo dev)
VERSION=docker-check-$VERSION
TAG_PREFIX=joshbot-check
RUN_ID=$$

passed=0
failed=0
ENGINE_PID=
PROXY_PID=
VOLUMES=()

say() { printf '%s\n' "$*"; }
pass() { passed=$((passed + 1)); printf 'PASS  %-9s %s\n' "$1" "$2"; }
fail() { failed=$((failed + 1)); printf 'FAIL  %-9s %s\n' "$1" "$2"; }
die() { printf 'docker-check: %s\n' "$*" >&2; exit 2; }
dk() { "$DOCKER" "$@"; }

cleanup() {
	for v in ${VOLUMES[@]+"${VOLUMES[@]}"}; do dk volume rm -f "$v" >/dev/null 2>&1; done
	if [ "${KEEP_IMAGES:-}" != 1 ] && [ -n "${BUILT:-}" ]; then
		dk image rm -f "$TAG_PREFIX:default" "$TAG_PREFIX:minimal" >/dev/null 2>&1
	fi
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
	if [ -n "$ENGINE_PID" ]; then
		say "== stopping the private dockerd (pid $ENGINE_PID)"
		kill "$ENGINE_PID" 2>/dev/null
		for _ in $(seq 1 30); do kill -0 "$ENGINE_PID" 2>/dev/null || break; sleep 1; done
		if kill -0 "$ENGINE_PID" 2>/dev/null; then
			say "dockerd $ENGINE_PID still running after 30 s; sending SIGKILL"
			kill -9 "$ENGINE_PID" 2>/dev/null
		fi
		# dockerd leaves its default network namespace mounted.
		umount "$WORK/engine/exec/netns/default" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$WORK" || die "cannot create WORK=$WORK"

# ---- engine -----------------------------------------------------------------------------------

start_private_engine() {
	local dir=$WORK/engine
	mkdir -p "$dir"
	export DOCKER_HOST=unix://$dir/docker.sock
	say "== no engine answered; starting a private dockerd (socket $dir/docker.sock, log $dir/dockerd.log)"
	# No bridge and no iptables rules: the host's network is left alone. Builds then use
	# --network=host (see BUILD_FLAGS below).
	dockerd --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
		-H "$DOCKER_HOST" --iptables=false --ip-masq=false --bridge=none \
		>"$dir/dockerd.log" 2>&1 &
	ENGINE_PID=$!
	for _ in $(seq 1 60); do
		if dk info >/dev/null 2>&1; then return 0; fi
		kill -0 "$ENGINE_PID" 2>/dev/null || break
		sleep 1
	done
	tail -n 20 "$dir/dockerd.log" >&2
	die "the private dockerd did not come up; its log is $dir/dockerd.log"
}

if ! dk info >/dev/null 2>&1; then
	if [ -n "${DOCKER_HOST:-}" ]; then
		die "no engine answers at DOCKER_HOST=$DOCKER_HOST ($DOCKER info failed)"
	elif [ "$(id -u)" = 0 ] && command -v dockerd >/dev/null 2>&1; then
		start_private_engine
	else
		die "no Docker engine answers ($DOCKER info failed) and none can be started here: start one, set DOCKER_HOST, or as root install dockerd (Debian: apt-get install docker.io)"
	fi
fi
say "== engine: $(dk version --format 'server {{.Server.Version}}, client {{.Client.Version}}' 2>/dev/null)"

# The checks run without a network: nothing they do needs one. Builds fetch Go modules; an
# engine without a bridge network (like the private one) gives them the host's network.
RUN_NET=(--network=none)
BUILD_FLAGS=()
if ! dk network inspect bridge >/dev/null 2>&1; then
	say "   the engine has no bridge network: building with --network=host"
	BUILD_FLAGS+=(--network=host)
fi
# shellcheck disable=SC2206 # split on spaces on purpose
[ -n "${DOCKER_BUILD_FLAGS:-}" ] && BUILD_FLAGS+=($DOCKER_BUILD_FLAGS)

# ---- base images ------------------------------------------------------------------------------

have_image() { dk image inspect "$1" >/dev/null 2>&1; }

# obtain IMAGE: present locally or pulled. Prints nothing; the caller reports.
obtain() {
	have_image "$1" && return 0
	say "   pulling $1 ..."
	local limit=()
	command -v timeout >/dev/null 2>&1 && limit=(timeout 300)
	if out=$(${limit[@]+"${limit[@]}"} "$DOCKER" pull -q "$1" 2>&1); then return 0; fi
	say "   cannot pull $1: $(printf '%s' "$out" | tail -n 1)"
	return 1
}

need() { command -v "$1" >/dev/null 2>&1 || die "$2"; }

# Debian bookworm minbase with ca-certificates, cached as a tarball in $WORK.
debian_rootfs_tar() {
	local tar=$WORK/cache/debian-bookworm-minbase.tar
	if [ -s "$tar" ]; then printf '%s' "$tar"; return 0; fi
	need debootstrap "no $GO_IMAGE and debootstrap is missing to build its stand-in (apt-get install debootstrap, or set GO_IMAGE to an image the engine has)"
	[ "$(id -u)" = 0 ] || die "debootstrap needs root to build the stand-in for $GO_IMAGE"
	local mirror rootfs=$WORK/rootfs-debian
	mirror=$(debian_mirror)
	rm -rf "$rootfs"; mkdir -p "$WORK/cache"
	say "   debootstrap bookworm (minbase, ca-certificates) from $mirror; log $WORK/debootstrap.log" >&2
	debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" \
		>"$WORK/debootstrap.log" 2>&1 || die "debootstrap failed; see $WORK/debootstrap.log"
	rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
	if ! tar --numeric-owner -C "$rootfs" -cf "$tar.tmp" . || ! mv "$tar.tmp" "$tar"; then die "cannot write $tar"; fi
	rm -rf "$rootfs"
	printf '%s' "$tar"
}

# The Debian mirror apt already uses here, else the public one.
debian_mirror() {
	local m
	m=$(grep -hoE '^URIs: *https?://[^ ]*/debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 | sed 's/^URIs: *//')
	[ -n "$m" ] || m=$(grep -hoE '^deb +(\[[^]]*\] +)?https?://[^ ]*/debian/? +bookworm' /etc/apt/sources.list 2>/dev/null | head -n 1 | awk '{print $(NF-1)}')
	printf '%s' "${m:-http://deb.debian.org/debian}"
}

build_go_standin() {
	local goroot gover tar tag ctx
	need go "no $GO_IMAGE and no Go toolchain on the host to build its stand-in (set GO_IMAGE to an image the engine has)"
	goroot=$(go env GOROOT); gover=$(go env GOVERSION)
	tag=localhost/joshbot-standin-golang:${gover#go}
	if have_image "$tag"; then GO_IMAGE=$tag; return 0; fi
	tar=$(debian_rootfs_tar) || exit 2
	dk import "$tar" localhost/joshbot-standin-debian:bookworm >/dev/null || die "docker import of $tar failed"
	ctx=$WORK/go-context; rm -rf "$ctx"; mkdir -p "$ctx"
	cp -a "$goroot" "$ctx/go" || die "cannot copy $goroot"
	rm -rf "$ctx/go/pkg/obj" "$ctx/go/.git"
	cat >"$ctx/Dockerfile" <<-'EOF'
		FROM localhost/joshbot-standin-debian:bookworm
		COPY go /usr/local/go
		ENV GOLANG_VERSION=local GOTOOLCHAIN=local GOPATH=/go \
		    PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
		RUN mkdir -p /go/src /go/bin && chmod -R 1777 /go && go version
		WORKDIR /go
	EOF
	dk build ${BUILD_FLAGS[@]+"${BUILD_FLAGS[@]}"} -t "$tag" "$ctx" >"$WORK/build-standin-golang.log" 2>&1 \
		|| die "building $tag failed; see $WORK/build-standin-golang.log"
	rm -rf "$ctx"
	GO_IMAGE=$tag
}

build_runtime_standin() {
	local tag=localhost/joshbot-standin-busybox:latest dir deb rootfs bin
	if have_image "$tag"; then RUNTIME_IMAGE=$tag; return 0; fi
	need apt-get "no $RUNTIME_IMAGE and no apt-get to fetch busybox-static for its stand-in (set RUNTIME_IMAGE to an image with /bin/sh the engine has)"
	dir=$WORK/busybox; rootfs=$dir/rootfs
	rm -rf "$dir"; mkdir -p "$rootfs"
	(cd "$dir" && apt-get download -q busybox-static >/dev/null 2>&1) || die "apt-get download busybox-static failed (run apt-get update?)"
	for deb in "$dir"/busybox-static_*.deb; do dpkg-deb -x "$deb" "$dir/x" || die "cannot unpack $deb"; done
	[ -x "$dir/x/bin/busybox" ] || die "busybox-static's package holds no bin/busybox"
	mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,tmp,root,var,home}
	cp "$dir/x/bin/busybox" "$rootfs/bin/busybox"
	for bin in $("$rootfs/bin/busybox" --list-full); do
		[ -e "$rootfs/$bin" ] || ln -s /bin/busybox "$rootfs/$bin"
	done
	chmod 1777 "$rootfs/tmp"; chmod 0700 "$rootfs/root"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/sbin/nologin\n' >"$rootfs/etc/passwd"
	printf 'root:x:0:\nnobody:x:65534:\n' >"$rootfs/etc/group"
	tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . | dk import \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'CMD ["/bin/sh"]' - "$tag" >/dev/null || die "docker import of the busybox root file system failed"
	rm -rf "$dir"
	RUNTIME_IMAGE=$tag
}

say "== base images"
GO_WANTED=$GO_IMAGE RUNTIME_WANTED=$RUNTIME_IMAGE
if obtain "$GO_IMAGE"; then say "   build stage:     $GO_IMAGE"
else build_go_standin; say "   build stage:     $GO_IMAGE (local stand-in for $GO_WANTED: Debian bookworm minbase + host Go)"; fi
if obtain "$RUNTIME_IMAGE"; then say "   default runtime: $RUNTIME_IMAGE"
else build_runtime_standin; say "   default runtime: $RUNTIME_IMAGE (local stand-in for $RUNTIME_WANTED: busybox-static)"; fi
say "   minimal runtime: scratch"

# ---- Go modules -------------------------------------------------------------------------------

# serve_host_modules: fill the host's module cache with what the binary needs and serve its
# download directory, which has the GOPROXY layout, on a loopback port. Sets GOPROXY.
serve_host_modules() {
	local cache dir=$WORK/modproxy addr=
	say "   go list -deps ./joshbot/cmd/joshbot on the host (fills its module cache)"
	(cd "$ROOT" && GOOS=linux CGO_ENABLED=0 go list -deps ./joshbot/cmd/joshbot >/dev/null) \
		|| die "go list -deps ./joshbot/cmd/joshbot failed on the host; MODULES=network lets the build fetch modules itself"
	cache=$(go env GOMODCACHE)/cache/download
	mkdir -p "$dir"
	cat >"$dir/main.go" <<-'EOF'
		// modproxy serves a Go module cache's download directory (the GOPROXY layout) on loopback.
		package main

		import (
			"fmt"
			"net"
			"net/http"
			"os"
		)

		func main() {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				fmt.Fprintln(os.Stderr, "modproxy:", err)
				os.Exit(1)
			}
			fmt.Println(ln.Addr().String())
			fmt.Fprintln(os.Stderr, http.Serve(ln, http.FileServer(http.Dir(os.Args[1]))))
		}
	EOF
	printf 'module modproxy\n\ngo 1.21\n' >"$dir/go.mod"
	(cd "$dir" && GOWORK=off go build -o modproxy .) || die "cannot build the module server in $dir"
	rm -f "$dir/addr"
	"$dir/modproxy" "$cache" >"$dir/addr" 2>"$dir/log" &
	PROXY_PID=$!
	for _ in $(seq 1 50); do addr=$(head -n 1 "$dir/addr" 2>/dev/null); [ -n "$addr" ] && break; sleep 0.1; done
	[ -n "$addr" ] || die "the module server did not start; see $dir/log"
	GOPROXY=http://$addr
	say "   serving $cache at $GOPROXY"
}

if [ -z "${MODULES:-}" ]; then
	MODULES=host
	if [ -n "${GOPROXY:-}" ] || [ "$(uname -s)" != Linux ] || ! command -v go >/dev/null 2>&1; then MODULES=network; fi
	case ${DOCKER_HOST:-unix://} in unix://*) ;; *) MODULES=network ;; esac
fi
say "== Go modules: $MODULES"
case $MODULES in
host)
	serve_host_modules
	[[ " ${BUILD_FLAGS[*]-} " == *" --network=host "* ]] || BUILD_FLAGS+=(--network=host)
	;;
network) say "   the build stage fetches them from ${GOPROXY:-the default Go module proxy}" ;;
*) die "MODULES=$MODULES: want host or network" ;;
esac

# ---- build ------------------------------------------------------------------------------------

ARGS=(--build-arg "GO_IMAGE=$GO_IMAGE" --build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE" --build-arg "VERSION=$VERSION")
[ -n "${GOPROXY:-}" ] && ARGS+=(--build-arg "GOPROXY=$GOPROXY")

BUILT_TARGETS=" "
for target in default minimal; do
	tag=$TAG_PREFIX:$target
	log=$WORK/build-$target.log
	say "== docker build --target $target -t $tag ${ARGS[*]} ${BUILD_FLAGS[*]-} ."
	start=$(date +%s)
	if dk build --target "$target" -t "$tag" "${ARGS[@]}" ${BUILD_FLAGS[@]+"${BUILD_FLAGS[@]}"} "$ROOT" >"$log" 2>&1; then
		BUILT=1; BUILT_TARGETS="$BUILT_TARGETS$target "
		builder="legacy builder"; grep -q '^#[0-9]* \[internal\]' "$log" && builder=BuildKit
		pass "$target" "build with $builder ($(( $(date +%s) - start )) s; log $log)"
	else
		fail "$target" "build failed; last lines of $log:"
		tail -n 25 "$log" | sed 's/^/      /'
	fi
done

# ---- checks -----------------------------------------------------------------------------------

# check_target TARGET: every check of one built image.
check_target() {
	local t=$1 img=$TAG_PREFIX:$1 out user uid entry bin vol size mb stat_out
	say "== checks: $img"

	# version
	if out=$(dk run --rm "${RUN_NET[@]}" "$img" version 2>&1) && [[ $out == "joshbot $VERSION "* ]]; then
		pass "$t" "version: $out"
	else
		fail "$t" "version: want 'joshbot $VERSION ...', got: $out"
	fi

	# configured user
	user=$(dk image inspect -f '{{.Config.User}}' "$img")
	uid=${user%%:*}
	case $uid in
	'' | 0 | root) fail "$t" "configured user is root ('$user')" ;;
	*) pass "$t" "configured user: $user (docker image inspect)" ;;
	esac

	# volume and home
	# shellcheck disable=SC2016 # a Go template, not a shell expansion
	out=$(dk image inspect -f '{{range $k, $v := .Config.Volumes}}{{$k}} {{end}}|{{range .Config.Env}}{{.}} {{end}}' "$img")
	if [[ ${out%%|*} == *"/data "* && ${out#*|} == *"JOSHBOT_HOME=/data "* ]]; then
		pass "$t" "VOLUME /data, JOSHBOT_HOME=/data"
	else
		fail "$t" "want VOLUME /data and JOSHBOT_HOME=/data, got volumes/env: $out"
	fi

	# id -u inside, where a shell exists
	if dk run --rm "${RUN_NET[@]}" --entrypoint /bin/sh "$img" -c 'exit 0' >/dev/null 2>&1; then
		out=$(dk run --rm "${RUN_NET[@]}" --entrypoint /bin/sh "$img" -c 'id -u; id -un 2>/dev/null || true' 2>&1 | tr '\n' ' ')
		case ${out%% *} in
		'' | 0 | *[!0-9]*) fail "$t" "id -u inside: $out" ;;
		*) pass "$t" "id -u inside: ${out% }" ;;
		esac
	else
		say "      $t has no /bin/sh (as designed for minimal): uid checked through file ownership below"
		[ "$t" = minimal ] || fail "$t" "no /bin/sh in the default image: the shell tool needs one"
	fi

	# static binary: copied out of the image and read with readelf (or file)
	entry=$(dk image inspect -f '{{index .Config.Entrypoint 0}}' "$img")
	bin=$WORK/joshbot-$t
	rm -f "$bin"
	cid=$(dk create "$img") && dk cp "$cid:$entry" "$bin" >/dev/null 2>&1
	[ -n "${cid:-}" ] && dk rm "$cid" >/dev/null 2>&1
	if [ ! -s "$bin" ]; then
		fail "$t" "static: cannot copy $entry out of the image"
	elif command -v readelf >/dev/null 2>&1; then
		if readelf -lW "$bin" | grep -q 'INTERP' || readelf -dW "$bin" | grep -q 'NEEDED'; then
			fail "$t" "static: $entry has a program interpreter or NEEDED libraries: $(readelf -dW "$bin" | grep NEEDED | tr -s ' ' | tr '\n' ';')"
		else
			pass "$t" "static: $entry has no INTERP header and no NEEDED libraries (readelf)$(file -b "$bin" 2>/dev/null | grep -o ', statically linked')"
		fi
	elif command -v file >/dev/null 2>&1; then
		out=$(file -b "$bin")
		if [[ $out == *"statically linked"* ]]; then pass "$t" "static: $out"; else fail "$t" "static: $out"; fi
	else
		fail "$t" "static: neither readelf nor file is installed to inspect $entry"
	fi
	rm -f "$bin"

	# onboard into a fresh named volume, as the image's user
	vol=joshbot-check-$t-$RUN_ID
	VOLUMES+=("$vol")
	dk volume rm -f "$vol" >/dev/null 2>&1
	if out=$(dk run --rm "${RUN_NET[@]}" -v "$vol:/data" -e X=docker-check-secret "$img" \
		onboard --provider custom --api-base http://127.0.0.1:9/v1 --model m --api-key-env X 2>&1); then
		pass "$t" "onboard exit 0: $(printf '%s' "$out" | head -n 1)"
	else
		fail "$t" "onboard failed: $out"
	fi
	# Ownership and modes, read as root by the build-stage image (it has coreutils).
	if ! stat_out=$(dk run --rm "${RUN_NET[@]}" --user 0 -v "$vol:/data" --entrypoint stat "$GO_IMAGE" \
		-c '%u:%g %a %n' /data /data/config.json /data/workspace /data/workspace/AGENTS.md 2>&1); then
		fail "$t" "volume: stat failed: $stat_out"
	elif printf '%s\n' "$stat_out" | awk -v u="$uid" '{ split($1, o, ":"); if (o[1] != u) bad = 1 } END { exit bad }'; then
		pass "$t" "volume: owned by uid $uid: $(printf '%s' "$stat_out" | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
	else
		fail "$t" "volume: files not owned by the image's user ('$user'): $(printf '%s' "$stat_out" | tr '\n' ';')"
	fi
	if printf '%s\n' "$stat_out" | grep -q '^[0-9]*:[0-9]* 700 /data$' \
		&& printf '%s\n' "$stat_out" | grep -q '^[0-9]*:[0-9]* 600 /data/config.json$'; then
		pass "$t" "volume: /data is mode 0700, config.json 0600"
	else
		fail "$t" "volume: want /data 0700 and config.json 0600"
	fi
	out=$(dk run --rm "${RUN_NET[@]}" --user 0 -v "$vol:/data" --entrypoint cat "$GO_IMAGE" /data/config.json 2>&1)
	if [[ $out == *docker-check-secret* ]]; then
		fail "$t" "volume: config.json holds the key's value instead of the variable's name"
	elif [[ $out == *'"X"'* && $out == *'http://127.0.0.1:9/v1'* ]]; then
		pass "$t" "volume: config.json names \$X and the api base, and holds no key value"
	else
		fail "$t" "volume: config.json lacks the api base or the variable name: $out"
	fi
	# A second container reads the state back from the volume.
	if out=$(dk run --rm "${RUN_NET[@]}" -v "$vol:/data" "$img" configure --list 2>&1) \
		&& printf '%s\n' "$out" | grep -q 'http://127.0.0.1:9/v1.*file'; then
		pass "$t" "volume: a new container reads it back: $(printf '%s\n' "$out" | grep -m1 'http://127.0.0.1:9/v1' | tr -s ' ')"
	else
		fail "$t" "volume: configure --list in a new container does not show the onboarded api base: $out"
	fi

	# size
	size=$(dk image inspect -f '{{.Size}}' "$img")
	mb=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1000000 }')
	if awk -v s="$size" -v m="$MAX_IMAGE_MB" 'BEGIN { exit !(s <= m * 1000000) }'; then
		pass "$t" "size: $mb MB ($size bytes; limit $MAX_IMAGE_MB MB)"
	else
		fail "$t" "size: $mb MB is over $MAX_IMAGE_MB MB"
	fi
}

for target in default minimal; do
	if [[ $BUILT_TARGETS == *" $target "* ]]; then check_target "$target"; else say "== $target: not built, no checks"; fi
done

say "== summary"
dk image ls --format '   {{.Repository}}:{{.Tag}}  {{.Size}}' "$TAG_PREFIX" 2>/dev/null
say "docker-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
