//go:build ignore

// openapi_gen writes openapi.json, the JSON form of the hand-written
// api/openapi.yaml that the server embeds. Run: go generate ./internal/api
// (TestOpenAPIJSONUpToDate fails when they differ).
package main

import (
	"encoding/json"
	"log"
	"os"

	"github.com/oasdiff/yaml"
)

func main() {
	y, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		log.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		log.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		log.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("openapi.json", append(out, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
