package doccheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/detect"
)

// root returns the module's root directory, two levels up.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/mcpdoor/mcpdoor\n")) {
		t.Fatalf("%s is not the module's root: %v", dir, err)
	}
	return dir
}

// docs returns the documents the tests check, by path relative to the
// root: README.md, then docs/*.md.
func docs(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range append([]string{filepath.Join(dir, "README.md")}, paths...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
	}
	if len(out) < 10 {
		t.Fatalf("found %d documents", len(out))
	}
	return out
}

// TestSnippetsCompile: every Go snippet of the README and docs/ is code
// that go test compiles: each snippet, split at lines of "...", appears
// line for line (indentation and blank lines aside), its parts in order, in
// one example file of the module (a *_test.go file whose name says
// example), or of a module of the library's own (session/redisstore), so
// a snippet cannot drift from the API. The end-to-end tests, the examples
// and the benchmark do not count: a snippet is documentation, and its home
// is an Example of the package it shows.
func TestSnippetsCompile(t *testing.T) {
	dir := root(t)
	var sources [][]string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			// The library's modules of their own (session/redisstore) count;
			// the modules of the end-to-end tests, the examples and the
			// benchmark do not.
			switch {
			case rel == "tests", rel == "examples", rel == "bench", d.Name() == "testdata", d.Name() == "node_modules", strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if name := d.Name(); strings.HasSuffix(name, "_test.go") && strings.Contains(name, "example") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources = append(sources, codeLines(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) < 5 {
		t.Fatalf("found %d example files", len(sources))
	}
	n := 0
	for name, text := range docs(t, dir) {
		for _, snippet := range goSnippets(text) {
			n++
			if !found(sources, snippet) {
				t.Errorf("%s: this Go snippet is in no example file (*example*_test.go) of the module; copy it from an Example, or write one for it:\n%s",
					name, strings.Join(flatten(snippet), "\n"))
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d Go snippets in the documents", n)
	}
}

// goSnippets returns a document's ```go blocks, each as its parts between
// lines of "...", each part as trimmed lines.
func goSnippets(text string) [][][]string {
	var out [][][]string
	var cur [][]string
	in := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == "```go":
			in, cur = true, [][]string{nil}
		case in && trimmed == "```":
			in = false
			out = append(out, cur)
		case in && trimmed == "...":
			cur = append(cur, nil)
		case in && trimmed != "":
			cur[len(cur)-1] = append(cur[len(cur)-1], trimmed)
		}
	}
	return out
}

// codeLines returns a Go file's non-empty lines, trimmed.
func codeLines(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if trimmed := strings.TrimSpace(line); trimmed != "" {
			out = append(out, trimmed)
		}
	}
	return out
}

// found reports whether some source holds every part of snippet, as
// consecutive lines, the parts in order.
func found(sources [][]string, snippet [][]string) bool {
	for _, src := range sources {
		at, ok := 0, true
		for _, part := range snippet {
			i := indexLines(src[at:], part)
			if i < 0 {
				ok = false
				break
			}
			at += i + len(part)
		}
		if ok {
			return true
		}
	}
	return false
}

// indexLines returns where part starts in src, or -1.
func indexLines(src, part []string) int {
	for i := 0; i+len(part) <= len(src); i++ {
		if slices.Equal(src[i:i+len(part)], part) {
			return i
		}
	}
	return -1
}

func flatten(snippet [][]string) []string {
	var out []string
	for i, part := range snippet {
		if i > 0 {
			out = append(out, "...")
		}
		out = append(out, part...)
	}
	return out
}

// yamlKeys returns the YAML keys of struct type t, dotted under prefix:
// a block's own key, then the keys inside it. A map of blocks
// (mcp.annotations) has "<tool>" for its key.
func yamlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		ft := f.Type
		if name == "" && opts == "inline" {
			keys = append(keys, yamlKeys(ft, prefix)...)
			continue
		}
		key := prefix + name
		keys = append(keys, key)
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft.PkgPath() == reflect.TypeFor[autoexpose.Config]().PkgPath():
			keys = append(keys, yamlKeys(ft, key+".")...)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			keys = append(keys, yamlKeys(ft.Elem(), key+".<tool>.")...)
		}
	}
	return keys
}

// TestConfigKeys: docs/config.md's table of keys has a row for every YAML
// key of autoexpose.Config (MCPConfig, Rollout, REST, RateLimit and
// Annotations included), and no row for a key that does not exist; the
// doc comments of those types are the other half of the same facts.
func TestConfigKeys(t *testing.T) {
	keys := yamlKeys(reflect.TypeFor[autoexpose.Config](), "")
	for _, want := range []string{"mcp.rollout.token_ttl", "mcp.rest.names", "mcp.rate_limit.by", "mcp.annotations.<tool>.read_only"} {
		if !slices.Contains(keys, want) {
			t.Fatalf("the keys read from autoexpose.Config lack %s: %v", want, keys)
		}
	}
	text, err := os.ReadFile(filepath.Join(root(t), "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	row := regexp.MustCompile("^\\| `([a-z_.<>]+)` \\|")
	in := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "## ") {
			in = line == "## Keys"
			continue
		}
		if m := row.FindStringSubmatch(line); in && m != nil {
			if rows[m[1]] {
				t.Errorf("docs/config.md: %s has two rows", m[1])
			}
			rows[m[1]] = true
		}
	}
	for _, k := range keys {
		if !rows[k] {
			t.Errorf("docs/config.md: the table of keys has no row for %s", k)
		}
	}
	for k := range rows {
		if !slices.Contains(keys, k) {
			t.Errorf("docs/config.md: the table of keys has a row for %s, which is no key of autoexpose.Config", k)
		}
	}
}

// transparentWords is how docs/tools.md names each middleware of
// detect.Transparent.
var transparentWords = map[string]string{
	"github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm": "`middleware.Compress`",
	"github.com/go-chi/chi/v5/middleware.CleanPath":                "`CleanPath`",
	"github.com/go-chi/chi/v5/middleware.GetHead":                  "`GetHead`",
	"github.com/go-chi/chi/v5/middleware.Heartbeat.func1":          "`Heartbeat`",
	"github.com/go-chi/chi/v5/middleware.Logger":                   "`Logger`",
	"github.com/go-chi/chi/v5/middleware.NoCache":                  "`NoCache`",
	"github.com/go-chi/chi/v5/middleware.Recoverer":                "`Recoverer`",
	"github.com/go-chi/chi/v5/middleware.RedirectSlashes":          "`RedirectSlashes`",
	"github.com/go-chi/chi/v5/middleware.RequestLogger.func1":      "`RequestLogger`",
	"github.com/go-chi/chi/v5/middleware.StripSlashes":             "`StripSlashes`",
	"github.com/mcpdoor/mcpdoor/session.(*Manager).Middleware-fm":  "session middleware",
}

// TestTransparentListed: docs/tools.md names every middleware that a
// direct call may skip, as the detector knows them.
func TestTransparentListed(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root(t), "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(text, []byte("The middlewares known to be transparent"))
	if start < 0 {
		t.Fatal(`docs/tools.md has no paragraph "The middlewares known to be transparent"`)
	}
	para, _, _ := bytes.Cut(text[start:], []byte("\n\n"))
	flat := strings.Join(strings.Fields(string(para)), " ")
	for _, name := range detect.Transparent {
		word, ok := transparentWords[name]
		switch {
		case !ok:
			t.Errorf("%s is transparent: name it in docs/tools.md, and here in transparentWords", name)
		case !strings.Contains(flat, word):
			t.Errorf("docs/tools.md does not name %s (%s) among the transparent middlewares", word, name)
		}
	}
	if len(transparentWords) != len(detect.Transparent) {
		t.Errorf("transparentWords has %d names, detect.Transparent %d: drop the ones no longer transparent, here and in docs/tools.md", len(transparentWords), len(detect.Transparent))
	}
}

// TestLinks: every relative link of the README and docs/ leads to a file
// of the repository, and an anchor to a heading of the linked document.
func TestLinks(t *testing.T) {
	dir := root(t)
	all := docs(t, dir)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for name, text := range all {
		for _, m := range link.FindAllStringSubmatch(stripCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := name
			if file != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(name), file))
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(path))); err != nil {
				t.Errorf("%s: link %s: no file %s", name, target, path)
				continue
			}
			if anchor == "" {
				continue
			}
			doc, ok := all[path]
			if !ok {
				t.Errorf("%s: link %s: an anchor into %s, which is not a checked document", name, target, path)
				continue
			}
			if !slices.Contains(anchors(doc), anchor) {
				t.Errorf("%s: link %s: %s has no heading #%s (it has %v)", name, target, path, anchor, anchors(doc))
			}
		}
	}
}

// TestIndex: docs/README.md links every page of docs/.
func TestIndex(t *testing.T) {
	all := docs(t, root(t))
	index := all["docs/README.md"]
	for name := range all {
		page, ok := strings.CutPrefix(name, "docs/")
		if ok && page != "README.md" && !strings.Contains(index, "]("+page+")") {
			t.Errorf("docs/README.md does not link %s", page)
		}
	}
}

// stripCode returns text without its fenced code blocks, whose brackets
// are code, not links.
func stripCode(text string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// anchors returns the anchors of a document's headings as GitHub makes
// them: lower case, punctuation dropped, spaces as dashes, a repeated
// heading numbered.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(stripCode(text), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, a+"-"+strconv.Itoa(n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// maxREADME is the README's bound: a quick start, with the reference in
// docs/.
const maxREADME = 15000

// TestREADMESize: the README stays at most 15 KB.
func TestREADMESize(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxREADME {
		t.Errorf("README.md is %d bytes, over %d: move reference to docs/", len(b), maxREADME)
	}
}

// TestREADMEGoVersion: the README's minimum Go version is go.mod's go line.
func TestREADMEGoVersion(t *testing.T) {
	dir := root(t)
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Go " + string(m[1]) + " or later"; !bytes.Contains(readme, []byte(want)) {
		t.Errorf("README.md does not say %q, as go.mod's go line does", want)
	}
}
