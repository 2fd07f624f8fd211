# The Hush image built from source, for registries and builders that only
# take a Dockerfile. `make image` builds the same image without a Go image:
# deploy/image/Containerfile on a context prepared by scripts/image-context.sh,
# which is the recipe the tests build and run. The stage below runs that same
# script; the final stage must stay identical to the Containerfile (a test
# checks), only reading the context from the build stage.
FROM golang:1.26-bookworm AS context
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION, when given, must be the source's version (internal/app's
# Version, which the binary reports); BUILD describes the build beside it.
ARG VERSION=
ARG BUILD=
RUN VERSION="$VERSION" BUILD="$BUILD" scripts/image-context.sh /context

FROM scratch
ARG VERSION=unknown
ARG REVISION=unknown
ARG CREATED=unknown
COPY --from=context /context/rootfs/ /
COPY --from=context --chown=65532:65532 /context/data/ /data/
ENV HUSH_ADDR=:5100 HUSH_DATA_DIR=/data
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 5100
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/hush", "healthcheck", "-ready"]
LABEL org.opencontainers.image.title="Hush" \
      org.opencontainers.image.description="Share secrets through links that expire; speaks the Password Pusher API v2" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
ENTRYPOINT ["/hush"]
CMD ["serve"]
