package detect

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// tableRouter has one route of every kind and verdict, and one problem.
func tableRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Post("/get_weather", ok)
	r.With(authMiddleware).Post("/secure", ok)
	r.Post("/{tool}", ok)
	r.Post("/seed_session", ok)
	r.Post("/verify", ok)
	r.Post("/a/b", ok)
	r.Post("/", ok)
	r.Get("/mcp", ok)
	return r
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	if err := inspect(t, tableRouter(), &Options{Reserved: []string{"seed_session", "verify"}}).WriteTable(&buf); err != nil {
		t.Fatalf("WriteTable: %v", err)
	}
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestWriteTable -update to write it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteTable wrote\n%s\nwant (%s)\n%s", got, golden, want)
	}
	for i, line := range strings.Split(buf.String(), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d ends in a space: %q", i+1, line)
		}
	}
}

func TestWriteTableEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := inspect(t, chi.NewRouter(), nil).WriteTable(&buf); err != nil {
		t.Fatalf("WriteTable: %v", err)
	}
	if got, want := buf.String(), "TOOL  ROUTE  KIND  VERDICT  REASON\n"; got != want {
		t.Errorf("WriteTable wrote %q, want %q", got, want)
	}
}

type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteTableError(t *testing.T) {
	if err := inspect(t, tableRouter(), nil).WriteTable(failingWriter{}); !errors.Is(err, errWrite) {
		t.Errorf("WriteTable to a failing writer = %v, want %v", err, errWrite)
	}
}
