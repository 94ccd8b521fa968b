package sessions_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// FuzzDecode: session cookie values come from clients. Decode never panics,
// and a value it accepts carries a non-empty id that survives re-signing.
// The seed corpus in testdata/fuzz/FuzzDecode was signed with secretOld.
func FuzzDecode(f *testing.F) {
	m := sessions.New(keys(f, secretOld), nil)
	f.Fuzz(func(t *testing.T, value string) {
		id, err := m.Decode(value)
		if err != nil {
			if id != "" {
				t.Fatalf("Decode returned id %q with error %v", id, err)
			}
			return
		}
		if id == "" {
			t.Fatal("Decode accepted a value without an id")
		}
		if !strings.HasPrefix(value, id+".") {
			t.Fatalf("Decode accepted %q, which does not begin with its id %q", value, id)
		}
		c, err := m.Cookie(id)
		if err != nil {
			t.Fatalf("Cookie(%q): %v", id, err)
		}
		if again, err := m.Decode(c.Value); again != id || err != nil {
			t.Fatalf("re-signed %q decodes to %q, %v", id, again, err)
		}
	})
}

// TestFuzzDecodeSeeds keeps the seed corpus meaningful: the valid seeds
// still decode (so the fuzzer starts from values that pass the MAC: the
// middleware's cookie, and a seed's, for a rollout), and every other seed
// is refused.
func TestFuzzDecodeSeeds(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 6 {
		t.Fatalf("%d seeds, want at least 6", len(entries))
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			value := readSeed(t, filepath.Join(dir, e.Name()))
			id, err := m.Decode(value)
			if strings.HasPrefix(e.Name(), "valid") {
				if err != nil || id != "seed-session-id" {
					t.Errorf("Decode = %q, %v; want seed-session-id", id, err)
				}
				return
			}
			if err == nil {
				t.Errorf("Decode accepted the seed: %q", id)
			}
		})
	}
}

// readSeed returns the string of a one-string "go test fuzz v1" file.
func readSeed(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header, line, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	quoted, ok := strings.CutPrefix(line, "string(")
	if header != "go test fuzz v1" || !ok || !strings.HasSuffix(quoted, ")") {
		t.Fatalf("%s is not a go test fuzz v1 file with one string", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(quoted, ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}
