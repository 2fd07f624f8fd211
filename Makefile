.PHONY: test run build vet screenshots

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

# Regenerate the screenshots of the main pages (needs /usr/bin/chromium).
screenshots:
	mkdir -p docs/screenshots
	HUSH_REQUIRE_ALL=1 HUSH_SCREENSHOTS=$(CURDIR)/docs/screenshots go test -count=1 -run TestBrowserFlows ./internal/web/
