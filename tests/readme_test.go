package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/tests/nodeclient"
)

// TestREADMECompiles checks that every Go snippet of the README is code the
// test suite compiles: each snippet, split at lines of "...", appears in
// some Go file of the repository line for line (indentation aside), its
// parts in order, so a snippet cannot drift from the API.
func TestREADMECompiles(t *testing.T) {
	root := nodeclient.RepoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sources [][]string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err == nil {
				sources = append(sources, codeLines(string(b)))
			}
		}
		return nil
	})
	snippets := goSnippets(string(readme))
	if len(snippets) < 4 {
		t.Fatalf("found %d Go snippets in the README", len(snippets))
	}
	for _, snippet := range snippets {
		if !slicesFound(sources, snippet) {
			t.Errorf("this README snippet is in no Go file of the repository (copy it from an Example, or into one):\n%s", strings.Join(flatten(snippet), "\n"))
		}
	}
}

// goSnippets returns the README's ```go blocks, each as its parts between
// lines of "...", each part as trimmed lines.
func goSnippets(readme string) [][][]string {
	var out [][][]string
	var cur [][]string
	in := false
	for _, line := range strings.Split(readme, "\n") {
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

// slicesFound reports whether some source holds every part of snippet, as
// consecutive lines, the parts in order.
func slicesFound(sources [][]string, snippet [][]string) bool {
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

func indexLines(src, part []string) int {
	for i := 0; i+len(part) <= len(src); i++ {
		match := true
		for j, l := range part {
			if src[i+j] != l {
				match = false
				break
			}
		}
		if match {
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
