# syntax=docker/dockerfile:1
# Multi-stage build of a static joshbot binary.
#
#   docker build -t joshbot .                      # default: small Alpine runtime with a shell for the shell tool
#   docker build --target minimal -t joshbot:min . # nothing but the binary and CA certificates
#
# Both run as an unprivileged user and keep all state in the /data volume.

FROM golang:1.26 AS build
WORKDIR /src
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/joshbot ./joshbot/cmd/joshbot \
 && mkdir -p /out/data && chown 65532:65532 /out/data && chmod 0700 /out/data

# minimal: the static binary alone. The shell tool has no shell to run here.
FROM scratch AS minimal
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/joshbot /joshbot
COPY --from=build --chown=65532:65532 /out/data /data
ENV JOSHBOT_HOME=/data HOME=/data
USER 65532:65532
VOLUME ["/data"]
ENTRYPOINT ["/joshbot"]
CMD ["agent"]

# default: the same binary on Alpine, so the agent's shell tool has a shell.
FROM alpine:3.20
RUN apk add --no-cache ca-certificates \
 && adduser -D -H -u 65532 -h /data joshbot
COPY --from=build /out/joshbot /usr/local/bin/joshbot
COPY --from=build --chown=65532:65532 /out/data /data
ENV JOSHBOT_HOME=/data HOME=/data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/joshbot"]
CMD ["agent"]
