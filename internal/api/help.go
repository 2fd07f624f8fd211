package api

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed help/api.html.tmpl
var helpFS embed.FS

// helpCSP allows nothing but the page itself: no script, no style, no frames.
const helpCSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// helpOperation is one method and path of the OpenAPI document, for the page.
type helpOperation struct {
	Method, Path, Summary, Description string
	Auth                               string
	Parameters                         []helpParam
	Responses                          []helpResponse
}

type helpParam struct{ Name, In, Description string }

type helpResponse struct{ Status, Description string }

type helpPage struct {
	Title      string
	Version    string
	Operations []helpOperation
	Limits     helpLimits
}

type helpLimits struct {
	MaxBody, MaxFileSize, MaxPushSize int64
	MaxFiles                          int
	Anonymous, Files, URLs, QR        bool
	SubDay                            bool // sub-day durations offered (push.Settings.SubDayDurations)
}

var helpTemplate = template.Must(template.ParseFS(helpFS, "help/api.html.tmpl"))

// helpOperations reads the operations from the embedded OpenAPI document,
// so the page lists exactly what the document describes.
var helpOperations = sync.OnceValue(func() []helpOperation {
	var doc struct {
		Info struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIJSON, &doc); err != nil {
		panic("api: embedded openapi.json: " + err.Error())
	}
	var ops []helpOperation
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				Summary     string `json:"summary"`
				Description string `json:"description"`
				Security    []map[string]any
				Parameters  []struct {
					Name        string `json:"name"`
					In          string `json:"in"`
					Description string `json:"description"`
					Ref         string `json:"$ref"`
				} `json:"parameters"`
				Responses map[string]struct {
					Description string `json:"description"`
					Ref         string `json:"$ref"`
				} `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				panic("api: embedded openapi.json: " + err.Error())
			}
			h := helpOperation{Method: strings.ToUpper(method), Path: path, Summary: op.Summary, Description: op.Description,
				Auth: authNote(op.Security)}
			for _, p := range op.Parameters {
				if p.Ref != "" {
					p.Name = p.Ref[strings.LastIndex(p.Ref, "/")+1:]
					p.In = "see below"
				}
				h.Parameters = append(h.Parameters, helpParam{p.Name, p.In, p.Description})
			}
			for status, r := range op.Responses {
				d := r.Description
				if r.Ref != "" {
					d = r.Ref[strings.LastIndex(r.Ref, "/")+1:]
				}
				h.Responses = append(h.Responses, helpResponse{status, d})
			}
			sort.Slice(h.Responses, func(i, j int) bool { return h.Responses[i].Status < h.Responses[j].Status })
			ops = append(ops, h)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops
})

func authNote(security []map[string]any) string {
	switch {
	case security == nil:
		return "token optional (required when anonymous access is off)"
	case len(security) == 1 && len(security[0]) == 0:
		return "public"
	default:
		return "token required"
	}
}

// HelpHandler serves /help/api: the API documented for people, from the
// OpenAPI document plus examples, with this instance's limits.
func (s *Server) HelpHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := s.svc.Settings()
		page := helpPage{Title: "Hush API", Version: APIVersion, Operations: helpOperations(),
			Limits: helpLimits{MaxBody: s.maxBody, MaxFileSize: s.svc.MaxFileSize(), MaxPushSize: s.svc.MaxPushSize(),
				MaxFiles: st.MaxFileUploads, Anonymous: st.AllowAnonymous, Files: st.EnableFilePushes,
				URLs: st.EnableURLPushes, QR: st.EnableQRPushes, SubDay: st.SubDayDurations}}
		var buf bytes.Buffer
		if err := helpTemplate.Execute(&buf, page); err != nil {
			s.log.ErrorContext(r.Context(), "help page failed", "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", helpCSP)
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusOK)
		w.Write(buf.Bytes())
	})
}
