# Multi-stage build of a static joshbot binary.
#
#   docker build -t joshbot .                      # default: small Alpine runtime with a shell for the shell tool
#   docker build --target minimal -t joshbot:min . # nothing but the binary and CA certificates
#
# Both run as an unprivileged user (uid/gid 65532) and keep all state in the /data volume.
#
# Mirrors and air-gapped builds: the base images and the Go module proxy are build arguments,
# and no stage installs packages, so a build needs nothing but those two images and the modules.
#
#   --build-arg GO_IMAGE=registry.example/library/golang:1.26        build stage (Go toolchain, CA bundle)
#   --build-arg RUNTIME_IMAGE=registry.example/library/alpine:3.20   default runtime (needs /bin/sh)
#   --build-arg GOPROXY=https://goproxy.example                      Go module proxy of the build stage
#
# deploy/docker-check.sh (make docker-check) builds both targets and verifies them.
#
# No "# syntax=" line on purpose: it would make BuildKit fetch a frontend image from Docker Hub
# on every build; the frontend built into the engine handles everything used here.

ARG GO_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=alpine:3.20

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY . .
# Unset or empty: Go's default proxy.
ARG GOPROXY
ARG VERSION=dev
# /out/state/data becomes /data: COPY of a directory copies its contents into a destination it
# creates with mode 0755, so the parent is copied to keep /data's own owner and 0700 mode.
# joshbot-sandbox, the helper that confines each shell command, is built first: joshbot carries its
# Go build ID and runs it from beside itself only when it is that very build. On amd64 its entry
# point is sandbox/helper.Entry, which makes its namespaces before the Go runtime starts.
RUN entry= && if [ "$(go env GOARCH)" = amd64 ]; then entry="-E github.com/joshbot/joshbot/sandbox/helper.Entry"; fi \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $entry" -o /out/joshbot-sandbox ./joshbot/cmd/joshbot-sandbox \
 && id=$(go tool buildid /out/joshbot-sandbox) \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/joshbot/joshbot/joshbot/internal/cli.version=${VERSION} -X github.com/joshbot/joshbot/joshbot/internal/runtime.helperBuildID=${id}" -o /out/joshbot ./joshbot/cmd/joshbot \
 && mkdir -p /out/state/data && chown 65532:65532 /out/state/data && chmod 0700 /out/state/data

# minimal: the static binary (and its sandbox helper) alone. The shell tool has no shell to run here.
FROM scratch AS minimal
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/joshbot /out/joshbot-sandbox /
COPY --from=build /out/state/ /
ENV JOSHBOT_HOME=/data HOME=/data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/joshbot"]
CMD ["agent"]

# default: the same binary on Alpine, so the agent's shell tool has a shell (and BusyBox's
# ls, cat, grep). The CA bundle comes from the build stage, as in minimal, and the user is
# written into /etc/passwd directly, so this stage needs only /bin/sh from its base: no
# package repository, and any base with a POSIX shell can stand in for Alpine.
FROM ${RUNTIME_IMAGE} AS default
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN { grep -q '^[^:]*:[^:]*:65532:' /etc/passwd || echo 'joshbot:x:65532:65532:joshbot:/data:/sbin/nologin' >> /etc/passwd; } \
 && { grep -q '^[^:]*:[^:]*:65532:' /etc/group || echo 'joshbot:x:65532:' >> /etc/group; }
COPY --from=build /out/joshbot /out/joshbot-sandbox /usr/local/bin/
COPY --from=build /out/state/ /
ENV JOSHBOT_HOME=/data HOME=/data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/joshbot"]
CMD ["agent"]
