package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigModule writes into dir a module of about lines lines of handlers:
// packages of twenty handlers each (a body decoded through a helper, a
// query read through a typed reader, an answer through a buffered
// encoder helper, a required member), their types, and a main package
// that registers them all on an http.ServeMux. It returns the number of
// lines written.
func bigModule(tb testing.TB, dir string, lines int) int {
	tb.Helper()
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write(filepath.Join(dir, "go.mod"), "module example.com/big\n\ngo 1.26.0\n")
	written := 3
	var mains strings.Builder
	mains.WriteString("package main\n\nimport (\n\t\"net/http\"\n\n")
	var routes strings.Builder
	var stores []string
	const perPackage = 20
	for p := 0; written < lines; p++ {
		var b strings.Builder
		name := fmt.Sprintf("p%03d", p)
		fmt.Fprintf(&b, `// Package %[1]s is one of the big module's resources.
package %[1]s

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// respond answers v as JSON with the status.
func respond(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		http.Error(w, "encoding failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

// decode reads the request's body into dst.
func decode(r *http.Request, dst any) error {
	return json.NewDecoder(r.Body).Decode(dst)
}

// query reads typed query parameters.
type query struct{ url.Values }

func (q query) int(key string, def int) int {
	n, err := strconv.Atoi(q.Get(key))
	if err != nil {
		return def
	}
	return n
}

// Store keeps the resource's records.
type Store struct {
	mu   sync.Mutex
	seen int
}
`, name)
		for h := 0; h < perPackage; h++ {
			fmt.Fprintf(&b, `
// Input%[1]d is what Handle%[1]d takes.
type Input%[1]d struct {
	Name   string            `+"`json:\"name\"`"+`
	Count  int               `+"`json:\"count\"`"+`
	Tags   []string          `+"`json:\"tags,omitempty\"`"+`
	Labels map[string]string `+"`json:\"labels,omitempty\"`"+`
	Nested struct {
		A string `+"`json:\"a\"`"+`
		B int    `+"`json:\"b\"`"+`
	} `+"`json:\"nested\"`"+`
}

// Output%[1]d is what Handle%[1]d answers.
type Output%[1]d struct {
	ID    int    `+"`json:\"id\"`"+`
	Name  string `+"`json:\"name\"`"+`
	Page  int    `+"`json:\"page\"`"+`
	Total int    `+"`json:\"total\"`"+`
}

// Handle%[1]d takes an input, checks it, and answers what it kept.
func (s *Store) Handle%[1]d(w http.ResponseWriter, r *http.Request) {
	var in Input%[1]d
	if err := decode(r, &in); err != nil {
		respond(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if in.Name == "" {
		http.Error(w, "name is required", http.StatusBadRequest)
		return
	}
	q := query{r.URL.Query()}
	page := q.int("page", 1)
	s.mu.Lock()
	s.seen++
	total := s.seen
	s.mu.Unlock()
	respond(w, http.StatusOK, Output%[1]d{ID: total, Name: in.Name, Page: page, Total: total + in.Count})
}
`, h)
			fmt.Fprintf(&routes, "\tmux.HandleFunc(\"POST /%s/handle%d\", %s.Handle%d)\n", name, h, name+"s", h)
		}
		src := b.String()
		written += strings.Count(src, "\n")
		write(filepath.Join(dir, name, name+".go"), src)
		fmt.Fprintf(&mains, "\t\"example.com/big/%s\"\n", name)
		stores = append(stores, fmt.Sprintf("\t%ss := &%s.Store{}\n", name, name))
	}
	mains.WriteString(")\n\n// routes serves every resource.\nfunc routes() *http.ServeMux {\n\tmux := http.NewServeMux()\n")
	mains.WriteString(strings.Join(stores, ""))
	mains.WriteString(routes.String())
	mains.WriteString("\treturn mux\n}\n\nfunc main() { http.ListenAndServe(\"127.0.0.1:0\", routes()) }\n")
	write(filepath.Join(dir, "main.go"), mains.String())
	return written + strings.Count(mains.String(), "\n")
}

// BenchmarkGen: gen over a module of 50,000 lines, from its load (go list,
// the type-check of its packages from source) to the generated files'
// bytes.
func BenchmarkGen(b *testing.B) {
	dir := b.TempDir()
	n := bigModule(b, dir, 50_000)
	b.Logf("the module: %d lines", n)
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if _, err := Run(Options{Dir: dir, Env: env}); err != nil { // warms the build cache's export data
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Run(Options{Dir: dir, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Files) == 0 {
			b.Fatal("gen wrote no file")
		}
	}
}
