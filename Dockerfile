# Hush: a static binary on a distroless base, running as a non-root user.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/hush ./cmd/hush \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/hush /hush
COPY --from=build --chown=65532:65532 /out/data /data
ENV HUSH_ADDR=:5100 HUSH_DATA_DIR=/data
EXPOSE 5100
USER 65532:65532
ENTRYPOINT ["/hush"]
CMD ["serve"]
