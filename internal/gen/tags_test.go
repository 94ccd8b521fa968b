package gen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
)

// oddTags is a handler whose body type, declared in it (so that the
// generated file writes it out, tags and all), has struct tags with a
// carriage return, a NUL, a byte order mark and a backquote in them; the
// handler refuses a body without the member whose name holds the BOM.
const oddTags = "package odd\n\nimport (\n\t\"encoding/json\"\n\t\"net/http\"\n)\n\n" +
	"// Odd takes members of odd names.\n" +
	"func Odd(w http.ResponseWriter, r *http.Request) {\n" +
	"\tvar in struct {\n" +
	"\t\tD string \"json:\\\"d\\r\\\"\"\n" +
	"\t\tE string \"json:\\\"e\\x00\\\"\"\n" +
	"\t\tF string \"json:\\\"f\\ufeff\\\"\"\n" +
	"\t\tG string \"json:\\\"g`\\\"\"\n" +
	"\t\tH string `json:\"h\"`\n" +
	"\t}\n" +
	"\tjson.NewDecoder(r.Body).Decode(&in)\n" +
	"\tif in.F == \"\" {\n\t\thttp.Error(w, \"f is required\", http.StatusBadRequest)\n\t\treturn\n\t}\n" +
	"\tw.WriteHeader(http.StatusNoContent)\n" +
	"}\n"

// TestOddTags: struct tags are written into the generated file byte for
// byte as the handler's type has them, a carriage return, a NUL and a BOM
// among them (a raw string would drop the first, and the compiler refuses
// the others in a file), and a member name with a BOM is written into the
// facts so that the file still compiles.
func TestOddTags(t *testing.T) {
	long(t)
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module example.com/odd\n\ngo 1.26.0\n", "odd.go": oddTags} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(Options{Dir: dir, Env: fixtureEnv()})
	if err != nil {
		t.Fatalf("gen on a handler with odd tags: %v", err)
	}
	if len(res.Files) != 1 {
		t.Fatalf("gen wrote %d files, want 1", len(res.Files))
	}
	src := res.Files[0].Data
	for _, bad := range []string{"\x00", "\ufeff", "\r"} {
		if strings.Contains(string(src), bad) {
			t.Errorf("the generated file holds %q, which the compiler refuses or drops:\n%s", bad, src)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), FileName, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("the generated file does not parse: %v\n%s", err, src)
	}
	var tags []string
	var facts string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if n.Tag != nil {
				tag, err := strconv.Unquote(n.Tag.Value) // as the compiler reads it
				if err != nil {
					t.Errorf("tag %s: %v", n.Tag.Value, err)
				}
				tags = append(tags, tag)
			}
		case *ast.BasicLit:
			if strings.HasPrefix(n.Value, "`{") {
				facts, _ = strconv.Unquote(n.Value)
			}
		}
		return true
	})
	want := []string{"json:\"d\r\"", "json:\"e\x00\"", "json:\"f\ufeff\"", "json:\"g`\"", `json:"h"`}
	if !slices.Equal(tags, want) {
		t.Errorf("the generated file's tags are %q, want %q", tags, want)
	}
	file, err := genfacts.Decode(facts)
	if err != nil {
		t.Fatalf("the facts: %v\n%s", err, facts)
	}
	if body := file.Handlers[0].Body; body == nil || !reflect.DeepEqual(body.Required, [][]string{{"f\ufeff"}}) {
		t.Errorf("the facts' body is %+v, want the member \"f\\ufeff\" required", body)
	}
}
