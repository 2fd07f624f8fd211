.PHONY: test run build vet screenshots bench bench-scale bench-peers fuzz crashtest faults image image-test

# Packages whose tests also run on PostgreSQL (HUSH_TEST_ENGINE=postgres).
PG_PACKAGES = ./internal/store ./internal/service ./internal/api ./internal/web ./internal/app

# The whole test suite: vet, then every test under the race detector, then
# the database-backed tests again on PostgreSQL (a throwaway server started
# from the Debian binaries, or HUSH_TEST_POSTGRES_URL).
test:
	go vet ./...
	go test -race -count=1 ./...
	HUSH_TEST_ENGINE=postgres go test -race -count=1 $(PG_PACKAGES)
	FUZZTIME=10s scripts/fuzz.sh

# Every fuzz target for FUZZTIME each (make fuzz FUZZTIME=10m).
FUZZTIME ?= 1m
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The long crash test: kill -9 under load for CRASHTIME, at least CRASHKILLS times
# (a short run, TestCrashSafety, is part of make test).
CRASHTIME ?= 5m
CRASHKILLS ?= 100
crashtest: build
	go run ./cmd/hush-crashtest -bin bin/hush -duration $(CRASHTIME) -kills $(CRASHKILLS)

# The fault scenarios at the scale of the original fault run (a few
# minutes): database locked and full, PostgreSQL stopped and frozen, an
# instance killed, S3 gone mid-transfer, kill -9 during key rotation,
# connection floods, the clock past expiry. Writes the table of
# docs/reliability.md to FAULTS_REPORT. (TestFaults, part of make test,
# runs the short versions.)
FAULTS_REPORT ?= faults-report.md
faults:
	go test -count=1 -v -timeout 60m -run TestFaults ./internal/faults/ -args -faults.long -faults.report=$(CURDIR)/$(FAULTS_REPORT)

# Run the service on the embedded SQLite database under ./data.
run:
	go run ./cmd/hush serve

build:
	CGO_ENABLED=0 go build -trimpath -o bin/hush ./cmd/hush

# The container image hush:latest (IMAGE=…) from deploy/image/Containerfile,
# with docker or podman, whichever works (CONTAINER_ENGINE=… to choose).
image:
	scripts/image.sh

# Build the image and run it: health, create and retrieve, non-root on a
# read-only root, a volume across restarts, SIGTERM, size, two instances on
# PostgreSQL and S3; and the systemd unit (also part of make test).
image-test:
	go test -count=1 -v ./internal/imagetest/

vet:
	gofmt -l . | (! grep .)
	go vet ./...

# Regenerate the screenshots of the main pages, with the main ones on a phone
# and in the dark theme too, and the secret page in German, Japanese and
# Arabic (needs /usr/bin/chromium, Mailpit, and a CJK font: fonts-noto-cjk).
screenshots:
	mkdir -p docs/screenshots
	HUSH_REQUIRE_ALL=1 HUSH_SCREENSHOTS=$(CURDIR)/docs/screenshots go test -count=1 -run 'TestBrowserFlows|TestBrowserAccounts|TestBrowserEmail|TestBrowserConfirmAccount|TestBrowserReloadSpendsNoView|TestBrowserFocusAfterError|TestBrowserScreenshotVariants|TestBrowserScreenshotLanguages' ./internal/web/

# Hush against the hush-bench baseline, pinned, A/B alternated; prints the
# table of docs/performance.md. Knobs: BENCH_DURATION (10s), BENCH_CONCURRENCY
# (32), BENCH_PAYLOAD (64), BENCH_ROUNDS (3), BENCH_WARMUP (500ms).
bench:
	./scripts/bench.sh

# The scale figures of issue 7 (docs/performance.md): retrieve with a million
# stored pushes, retrieve while the sweeper expires a million, passphrase
# retrievals, HUSH_SQLITE_SYNC=full. Knobs: SCALE_N (1000000), SCALE_DURATION
# (10s), SCALE_ROUNDS (3), SCALE_PARTS ("retrieve sweep passphrase sync"),
# SCALE_SYNC (0 leaves the sync part out), SCALE_RESULTS (keep the JSON reports).
bench-scale:
	./scripts/bench-scale.sh

# Hush beside Yopass (docs/performance.md): the baseline, Yopass on
# memcached and on Redis, Hush on SQLite, on PostgreSQL and two instances on
# PostgreSQL, alternated in one run, then the 1 GiB file figures.
# YOPASS_BIN=/path/to/yopass-server (built outside the repository, see the
# doc). Knobs: PEERS_DURATION (10s), PEERS_ROUNDS (2), PEERS_SERVERS,
# PEERS_SCENARIOS, PEERS_FILE_MIB (1024; 0: no file part), PEERS_RESULTS
# (keep the JSON reports). A check of the script:
# PEERS_DURATION=1s PEERS_ROUNDS=1 PEERS_FILE_MIB=64 make bench-peers
bench-peers:
	./scripts/bench-peers.sh
