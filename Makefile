.PHONY: test run build vet bench

# The whole test suite: vet, then every test under the race detector.
test:
	go vet ./...
	go test -race -count=1 ./...

# Run the service on the embedded SQLite database under ./data.
run:
	go run ./cmd/hush serve

build:
	CGO_ENABLED=0 go build -trimpath -o bin/hush ./cmd/hush

vet:
	gofmt -l . | (! grep .)
	go vet ./...

# Hush against the hush-bench baseline, pinned, A/B alternated; prints the
# table of docs/performance.md. Knobs: BENCH_DURATION (10s), BENCH_CONCURRENCY
# (32), BENCH_PAYLOAD (64), BENCH_ROUNDS (3), BENCH_WARMUP (500ms).
bench:
	./scripts/bench.sh
