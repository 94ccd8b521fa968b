package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// freshApp is a new app's one file: a chi router with one tool route, and
// Install.
const freshApp = `package main

import (
	"encoding/json"
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

type note struct {
	Text string ` + "`json:\"text\"`" + `
}

// AddNote keeps a note.
func AddNote(w http.ResponseWriter, r *http.Request) {
	var n note
	if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	json.NewEncoder(w).Encode(n)
}

func main() {
	r := chi.NewRouter()
	r.Post("/add_note", AddNote)
	cfg, err := autoexpose.ParseConfig([]byte("name: fresh\nexpose_tools_over_mcp: true\nmcp:\n  rollout: {disable: true}\n"))
	if err != nil {
		log.Fatal(err)
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:0", door))
}
`

// TestGoRunFreshModule: in a fresh app module (its go.mod, its code, go
// mod tidy, and nothing else), the command the docs give, go run
// github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen ./..., works as written, with
// no go get -tool before it, and the app builds with the file it wrote.
func TestGoRunFreshModule(t *testing.T) {
	long(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/fresh\n\ngo 1.26.0\n\nrequire github.com/mcpdoor/mcpdoor v0.0.0\n\nreplace github.com/mcpdoor/mcpdoor => " + filepath.ToSlash(root) + "\n"
	for name, data := range map[string]string{"go.mod": gomod, "main.go": freshApp} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// As a user's shell runs them: go.sum is only what go mod tidy wrote.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	goIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goIn("mod", "tidy")
	if out := goIn("run", "github.com/mcpdoor/mcpdoor/cmd/mcpdoor", "gen", "./..."); !strings.Contains(out, "mcpdoor: gen: wrote mcpdoor_gen.go") {
		t.Errorf("go run .../cmd/mcpdoor gen ./... printed\n%s\nwant it to say it wrote mcpdoor_gen.go", out)
	}
	goIn("build", "./...")
}
