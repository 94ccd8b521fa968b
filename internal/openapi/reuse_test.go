package openapi

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Load finds some things once and uses them again: the entries of a
// mapping (merge keys applied), what a $ref points to, the keywords of a
// schema. These tests check that each use still gets what it would have
// on its own.

// TestLoadSharedSchema: uses of one schema (YAML aliases, $refs) are
// separate copies: leaving out a read-only property, or adding null to
// the types, in one changes no other.
func TestLoadSharedSchema(t *testing.T) {
	doc := load(t, `openapi: 3.0.3
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                one: &t
                  type: [string, object]
                  nullable: true
                  required: [id, name]
                  properties: {id: {type: integer, readOnly: true}, name: {type: string}}
                two: *t
                three: {$ref: '#/components/schemas/T'}
components:
  schemas:
    T: *t
`)
	op := doc.Operation("POST", "/a")
	if op.Input == nil {
		t.Fatalf("no input: %s", op.NoInput)
	}
	each := `{"type":["string","object","null"],"properties":{"name":{"type":"string"}},"required":["name"]}`
	want := `{"type":"object","properties":{"one":` + each + `,"two":` + each + `,"three":` + each + `}}`
	if got := schemaJSON(t, op.Input); got != want {
		t.Errorf("input\n  %s\nwant\n  %s", got, want)
	}
	if _, err := op.Input.Resolve(nil); err != nil {
		t.Error(err)
	}
}

// TestLoadMergeKeys: a mapping's merge keys give the same entries however
// the mapping is reached, also when a merge key names the mapping that
// holds it.
func TestLoadMergeKeys(t *testing.T) {
	doc := load(t, `openapi: 3.1.0
x:
  base: &base {summary: base, description: from base, x-mcp-title: Base}
  mid: &mid {<<: *base, summary: mid}
  self: &self {<<: [*self, *mid], operationId: self}
paths:
  /a: {post: {<<: [*mid, *base]}}
  /b: {post: *self}
  /c: {post: {<<: *self, summary: c}}
  /d: {post: *mid}
`)
	cases := []struct{ path, id, summary string }{
		{"/a", "", "mid"},
		{"/b", "self", "mid"},
		{"/c", "self", "c"},
		{"/d", "", "mid"},
	}
	for _, c := range cases {
		op := doc.Operation("POST", c.path)
		if op.ID != c.id || op.Summary != c.summary || op.Description != "from base" || op.Annotations.Title != "Base" {
			t.Errorf("POST %s: id %q, summary %q, description %q, title %q", c.path, op.ID, op.Summary, op.Description, op.Annotations.Title)
		}
	}
}

// TestLoadDefNames: components that go to $defs (here, as each refers to
// itself) are named by the last segment of their $ref, made unique with a
// suffix, past the names the document itself gives.
func TestLoadDefNames(t *testing.T) {
	self := func(ref string) string { return "{properties: {self: {$ref: '" + ref + "'}}}" }
	doc := load(t, `openapi: 3.1.0
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema:
              properties:
                a: {$ref: '#/components/schemas/x'}
                b: {$ref: '#/components/schemas/x_2'}
                c: {$ref: '#/components/other/x'}
                d: {$ref: '#/components/more/x'}
components:
  schemas:
    x: `+self("#/components/schemas/x")+`
    x_2: `+self("#/components/schemas/x_2")+`
  other:
    x: `+self("#/components/other/x")+`
  more:
    x: `+self("#/components/more/x")+`
`)
	op := doc.Operation("POST", "/a")
	if op.Input == nil {
		t.Fatalf("no input: %s", op.NoInput)
	}
	var refs []string
	for _, name := range []string{"a", "b", "c", "d"} {
		refs = append(refs, op.Input.Properties[name].Properties["self"].Ref)
	}
	if diff := cmp.Diff([]string{"#/$defs/x", "#/$defs/x_2", "#/$defs/x_3", "#/$defs/x_4"}, refs); diff != "" {
		t.Errorf("$refs (-want +got):\n%s", diff)
	}
	if len(op.Input.Defs) != 4 {
		t.Errorf("%d $defs", len(op.Input.Defs))
	}
}

// TestLoadDocumentSize: Load reads documents up to maxDocument bytes.
func TestLoadDocumentSize(t *testing.T) {
	head := "openapi: 3.1.0\n#"
	fits := head + strings.Repeat(" ", maxDocument-len(head)-1) + "\n"
	if _, err := Load([]byte(fits)); err != nil {
		t.Errorf("a document of %d bytes: %v", len(fits), err)
	}
	_, err := Load([]byte(fits + " "))
	if want := "openapi: the document is 4194305 bytes; mcpdoor reads documents of up to 4194304 bytes (4 MiB)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
