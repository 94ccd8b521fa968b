package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// Crafted documents: small documents that make a reader do far more work
// than their size suggests, each in one way. TestLoadCrafted reads every
// one of them within a bound on the bytes Load allocates; FuzzLoad starts
// from smaller copies of them (testdata/fuzz/FuzzLoad/crafted-*).
var crafted = []craftedDoc{
	// Each level holds the level below twice, through YAML aliases: the
	// schema is 2^200 nodes once expanded, 200 levels deep, with a long
	// JSON pointer at the bottom.
	{"200 nested levels, 58-character keys", func() string { return nestedAliases(200, 58, 4) },
		"the request body's schema is too large: more than 8 MiB of keys and strings once YAML aliases are expanded | the document's schemas are too large: more than 32 MiB of keys and strings once YAML aliases are expanded"},
	{"250 nested levels, 240-character keys", func() string { return nestedAliases(250, 240, 8) },
		"the request body's schema is too large: more than 8 MiB of keys and strings once YAML aliases are expanded | the document's schemas are too large: more than 32 MiB of keys and strings once YAML aliases are expanded"},
	// The same through $refs: each component refers to the next one twice.
	{"a $ref chain 120 deep, 58-character names", func() string { return refChain(120, 58) }, ""},
	// allOf lists that hold the level below 16 times.
	{"allOf lists 16 wide, 40 deep", func() string { return allOfs(40, 16) },
		"the request body's schema is too large: more than 10000 schemas once YAML aliases are expanded"},
	// A long string, then lists that hold the one before 10 times: 10^5
	// copies of 64 KB in a default.
	{"a 64 KB string 100,000 times in a default", func() string { return longValue(64<<10, 5) },
		"the request body's schema is too large: more than 8 MiB of keys and strings once YAML aliases are expanded"},
	// Mappings each merging the one before and adding a key, under
	// operations that merge the last one: n²/2 keys in all.
	{"2,000 chained merge keys under 1,000 operations", func() string { return mergeChain(2000, 1, 1000) },
		"openapi: line 1747: #/paths/~1p0/post: merge keys (<<) nested more than 256 levels deep"},
	{"250 chained merge keys of 10,000 keys", func() string { return mergeChain(250, 10000, 10) },
		"openapi: line 10017: #/paths/~1p0/post: the document's merge keys (<<) copy more than 131072 keys; merge fewer or smaller mappings"},
	// A mapping of 4,500 components, each the target of a $ref.
	{"4,500 components, each $ref'd", func() string { return wide(4500) }, ""},
	// A long number in YAML's own spelling, which takes more than linear
	// time to convert to decimal, 4 times.
	{"a 1 MB hexadecimal number 4 times", func() string { return longNumber(1<<20, 4) },
		"openapi: line 2: #/paths/~1p/post/requestBody/content/application~1json/schema/enum/0: a number of 1048578 characters in YAML's own spelling (0x, 0o, _) is longer than mcpdoor reads (400); write it as JSON does"},
	// Schemas a validator applies in place, to the same value: 2^30 of
	// them through $refs, each component's allOf naming the next twice,
	// with a default that Load checks and without; a component that
	// applies itself, which no validation would get out of; an anyOf of
	// 1,000 schemas for each of the 10,000 values of a default.
	{"an allOf chain of 30 $refs, each twice, with a default", func() string { return allOfRefs(30, true) },
		"the request body's schema is too large: it applies more than 10000 schemas to one value once its $refs are expanded"},
	{"an allOf chain of 30 $refs, each twice", func() string { return allOfRefs(30, false) },
		"the request body's schema is too large: it applies more than 10000 schemas to one value once its $refs are expanded"},
	{"a component that applies itself", func() string { return selfApplied() },
		"the request body's schema applies #/components/schemas/S to the same value without end (through allOf, anyOf, oneOf, not, if, then, else or dependentSchemas): checking a value against it would never finish"},
	{"anyOf 1,000 wide for a default of 10,000 values", func() string { return anyOfDefault(1000, 10000) },
		"the request body's schema is too large: checking its defaults takes more than 262144 steps (the bytes of each default times the schemas it is checked against, $refs expanded)"},
	// The nested aliases of the first two in a Swagger 2.0 document's body
	// parameters and success responses: the responses' schemas take from
	// the same budgets.
	{"Swagger 2.0: 200 nested levels in bodies and responses", func() string { return swaggerAliases(200, 58, 4) },
		"the request body's schema is too large: more than 8 MiB of keys and strings once YAML aliases are expanded | " +
			"output: the response's schema is too large: more than 8 MiB of keys and strings once YAML aliases are expanded | " +
			"the document's schemas are too large: more than 32 MiB of keys and strings once YAML aliases are expanded | " +
			"output: the document's response schemas are too large: more than 32 MiB of keys and strings once YAML aliases are expanded"},
	// A $ref chain through definitions under 1,000 operations' responses.
	{"Swagger 2.0: a $ref chain 120 deep under 1,000 responses", func() string { return swaggerRefChain(120, 58, 1000) },
		"output: the document's response schemas are too large: more than 20000 schemas once YAML aliases are expanded"},
	// One path item with 3,000 keys, the item of 3,000 paths.
	{"a path item with 3,000 keys under 3,000 paths", func() string { return widePathItem(3000, 3000) },
		"openapi: line 3: #/paths/~1p698: the document's paths are too large once YAML aliases are expanded: more than 2097152 keys in path items, operations and request bodies"},
}

type craftedDoc struct {
	name string
	doc  func() string
	// want is what Load says: its error, or else the reasons its
	// operations have no input schema, each once, in order ("" when they
	// all have one).
	want string
}

// outcome is what Load says of a document, as craftedDoc.want has it.
func outcome(doc *Document, err error) string {
	if err != nil {
		return err.Error()
	}
	var reasons []string
	for _, op := range doc.Operations {
		if op.NoInput != "" && !slices.Contains(reasons, op.NoInput) {
			reasons = append(reasons, op.NoInput)
		}
		if why := "output: " + op.NoOutput; op.NoOutput != "" && !slices.Contains(reasons, why) {
			reasons = append(reasons, why)
		}
	}
	return strings.Join(reasons, " | ")
}

// nestedAliases is a document whose operations' schema has levels nested
// levels, each holding the one below under two properties of keyLen
// characters.
func nestedAliases(levels, keyLen, ops int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\nx:\n  l0: &l0 {type: string}\n")
	ka, kb := strings.Repeat("a", keyLen), strings.Repeat("b", keyLen)
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {properties: {%s: *l%d, %s: *l%d}}\n", i, i, ka, i-1, kb, i-1)
	}
	b.WriteString("paths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /p%d: {post: {requestBody: {content: {application/json: {schema: *l%d}}}}}\n", i, levels-1)
	}
	return b.String()
}

// swaggerAliases is nestedAliases as a Swagger 2.0 document, whose
// operations' body parameter and 200 response have the schema.
func swaggerAliases(levels, keyLen, ops int) string {
	var b strings.Builder
	b.WriteString("swagger: '2.0'\nx:\n  l0: &l0 {type: string}\n")
	ka, kb := strings.Repeat("a", keyLen), strings.Repeat("b", keyLen)
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {properties: {%s: *l%d, %s: *l%d}}\n", i, i, ka, i-1, kb, i-1)
	}
	b.WriteString("paths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /p%d: {post: {parameters: [{name: b, in: body, schema: *l%d}], responses: {'200': {description: ok, schema: *l%d}}}}\n", i, levels-1, levels-1)
	}
	return b.String()
}

// swaggerRefChain is refChain through a Swagger 2.0 document's
// definitions, as the 200 response of ops operations.
func swaggerRefChain(levels, nameLen, ops int) string {
	var b strings.Builder
	name := func(i int) string { return fmt.Sprintf("%0*d", nameLen, i) }
	b.WriteString("swagger: '2.0'\npaths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /p%d: {get: {responses: {'200': {description: ok, schema: {$ref: '#/definitions/%s'}}}}}\n", i, name(0))
	}
	b.WriteString("definitions:\n")
	for i := range levels - 1 {
		fmt.Fprintf(&b, "  %s: {properties: {a: {$ref: '#/definitions/%s'}, b: {$ref: '#/definitions/%s'}}}\n", name(i), name(i+1), name(i+1))
	}
	fmt.Fprintf(&b, "  %s: {type: string}\n", name(levels-1))
	return b.String()
}

// refChain is nestedAliases with $refs to components named with nameLen
// characters.
func refChain(levels, nameLen int) string {
	var b strings.Builder
	name := func(i int) string { return fmt.Sprintf("%0*d", nameLen, i) }
	fmt.Fprintf(&b, "openapi: 3.1.0\npaths:\n  /p:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/%s'}\ncomponents:\n  schemas:\n", name(0))
	for i := range levels - 1 {
		fmt.Fprintf(&b, "    %s: {properties: {a: {$ref: '#/components/schemas/%s'}, b: {$ref: '#/components/schemas/%s'}}}\n", name(i), name(i+1), name(i+1))
	}
	fmt.Fprintf(&b, "    %s: {type: string}\n", name(levels-1))
	return b.String()
}

// allOfs is a document whose schema nests allOf lists levels deep, each
// holding the level below width times.
func allOfs(levels, width int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\nx:\n  l0: &l0 {type: object, properties: {a: {type: string}}}\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {allOf: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), width), ", "))
	}
	fmt.Fprintf(&b, "paths:\n  /p: {post: {requestBody: {content: {application/json: {schema: *l%d}}}}}\n", levels-1)
	return b.String()
}

// longValue is a document whose schema's default holds a string of size
// bytes 10^levels times.
func longValue(size, levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "openapi: 3.1.0\nx:\n  l0: &l0 %s\n", strings.Repeat("s", size))
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	fmt.Fprintf(&b, "paths:\n  /p: {post: {requestBody: {content: {application/json: {schema: {type: object, default: *l%d}}}}}}\n", levels)
	return b.String()
}

// mergeChain is a document of n mappings, the first of keys keys, each of
// the others merging the one before and adding a key, and ops operations
// that merge the last one.
func mergeChain(n, keys, ops int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\nx:\n  m0: &m0\n")
	for i := range keys {
		fmt.Fprintf(&b, "    x-k%d: 0\n", i)
	}
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  m%d: &m%d {<<: *m%d, x-%d: 0}\n", i, i, i-1, i)
	}
	b.WriteString("paths:\n")
	for i := range ops {
		fmt.Fprintf(&b, "  /p%d: {post: {<<: *m%d}}\n", i, n-1)
	}
	return b.String()
}

// wide is a document of n components and one schema with a property for
// each, a $ref to it.
func wide(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\npaths:\n  /p:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema:\n              properties:\n")
	for i := range n {
		fmt.Fprintf(&b, "                p%d: {$ref: '#/components/schemas/C%d'}\n", i, i)
	}
	b.WriteString("components:\n  schemas:\n")
	for i := range n {
		fmt.Fprintf(&b, "    C%d: {type: string}\n", i)
	}
	return b.String()
}

// longNumber is a document whose schema's enum holds a hexadecimal number
// of digits digits times times, tagged !!int (untagged, YAML reads a
// number past 64 bits as a string).
func longNumber(digits, times int) string {
	return "openapi: 3.1.0\nx: &n !!int 0x" + strings.Repeat("f", digits) + "\npaths:\n  /p: {post: {requestBody: {content: {application/json: {schema: {type: object, enum: [" +
		strings.TrimSuffix(strings.Repeat("*n, ", times), ", ") + "]}}}}}}\n"
}

// allOfRefs is a document of levels components, each the allOf of the
// next one twice, and an operation whose schema is the first, with a
// default or not.
func allOfRefs(levels int, withDefault bool) string {
	var b strings.Builder
	def := ""
	if withDefault {
		def = "default: {}, "
	}
	fmt.Fprintf(&b, "openapi: 3.1.0\npaths:\n  /p: {post: {requestBody: {content: {application/json: {schema: {type: object, %sallOf: [{$ref: '#/components/schemas/S0'}]}}}}}}\ncomponents:\n  schemas:\n", def)
	for i := range levels {
		fmt.Fprintf(&b, "    S%d: {allOf: [{$ref: '#/components/schemas/S%d'}, {$ref: '#/components/schemas/S%d'}]}\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "    S%d: {type: object}\n", levels)
	return b.String()
}

// selfApplied is a document whose schema's component is the allOf of
// itself.
func selfApplied() string {
	return "openapi: 3.1.0\npaths:\n  /p: {post: {requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/S'}}}}}}\ncomponents:\n  schemas:\n    S: {type: object, default: {}, allOf: [{$ref: '#/components/schemas/S'}]}\n"
}

// anyOfDefault is a document whose schema has a list property with a
// default of elems strings, whose items are the anyOf of branches
// schemas, all but the last of which the strings fail.
func anyOfDefault(branches, elems int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\nx:\n  no: &no {type: integer}\n")
	b.WriteString("paths:\n  /p: {post: {requestBody: {content: {application/json: {schema: {type: object, properties: {list: {type: array, default: [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("a, ", elems), ", "))
	b.WriteString("], items: {anyOf: [")
	b.WriteString(strings.Repeat("*no, ", branches))
	b.WriteString("{type: string}]}}}}}}}}}\n")
	return b.String()
}

// widePathItem is a document whose paths all hold one path item of keys
// keys.
func widePathItem(keys, paths int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\nx:\n  item: &item\n    post: {summary: s}\n")
	for i := range keys {
		fmt.Fprintf(&b, "    x-%d: 0\n", i)
	}
	b.WriteString("paths:\n")
	for i := range paths {
		fmt.Fprintf(&b, "  /p%d: *item\n", i)
	}
	return b.String()
}

// TestLoadCrafted: Load reads each crafted document, or stops with an
// error, allocating no more than a bound proportional to the document's
// size. The bound is on bytes, not time. Each document is read in a child
// process of the test binary, so that one Load that does not stop cannot
// skew what the next one measures; a timeout ends a child that would
// otherwise run on.
func TestLoadCrafted(t *testing.T) {
	if name := os.Getenv(craftedEnv); name != "" {
		loadCrafted(t, name)
		return
	}
	for _, c := range crafted {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLoadCrafted$", "-test.v")
			// Under the race detector, a process sleeps a second as it
			// exits, unless told not to.
			cmd.Env = append(os.Environ(), craftedEnv+"="+c.name, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("Load did not finish in 20s")
			}
			if err != nil {
				t.Fatalf("%v:\n%s", err, out)
			}
			// A child whose -test.run matched no test would exit 0 too: it
			// must have logged what its Load allocated.
			measured := false
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, "crafted_test.go") {
					t.Log(strings.TrimSpace(line))
				}
				measured = measured || allocatedLine.MatchString(strings.TrimSpace(line))
			}
			if !measured {
				t.Fatalf("the child logged no line of what Load allocated:\n%s", out)
			}
		})
	}
}

// craftedEnv names, in a child process, the crafted document to read.
const craftedEnv = "OPENAPI_CRAFTED"

// allocatedLine is the line loadCrafted logs once Load has returned.
var allocatedLine = regexp.MustCompile(`^crafted_test\.go:\d+: \d+ bytes, \d+ MiB allocated$`)

// loadCrafted reads the crafted document named name, and fails when Load
// allocates more than its bound, finished or not.
func loadCrafted(t *testing.T, name string) {
	const (
		perByte = 256      // bytes Load may allocate per byte of the document
		fixed   = 64 << 20 // and besides, for the schemas the budgets allow
	)
	i := slices.IndexFunc(crafted, func(c craftedDoc) bool { return c.name == name })
	if i < 0 {
		t.Fatalf("no crafted document %q", name)
	}
	data := []byte(crafted[i].doc())
	bound := fixed + perByte*uint64(len(data))
	allocated := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.TotalAlloc
	}
	start := allocated()
	done := make(chan error, 1)
	var doc *Document
	go func() {
		var err error
		doc, err = Load(data)
		done <- err
	}()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			got := allocated() - start
			if got > bound {
				t.Fatalf("Load of a %d-byte document allocated %d MiB, more than %d MiB", len(data), got>>20, bound>>20)
			}
			t.Logf("%d bytes, %d MiB allocated", len(data), got>>20)
			if got, want := outcome(doc, err), crafted[i].want; got != want {
				t.Fatalf("Load says\n  %s\nwant\n  %s", got, want)
			}
			return
		case <-tick.C:
			if got := allocated() - start; got > bound {
				t.Fatalf("Load of a %d-byte document allocated more than %d MiB and has not finished", len(data), bound>>20)
			}
		}
	}
}

// BenchmarkLoadCrafted reads the crafted document of 200 nested levels
// with 58-character keys.
func BenchmarkLoadCrafted(b *testing.B) {
	data := []byte(nestedAliases(200, 58, 4))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadGenerated reads documents as generators write them.
func BenchmarkLoadGenerated(b *testing.B) {
	for _, name := range []string{"huma-3.1.yaml", "oapi-codegen.json"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// operations is a document as a server with n tool routes might have: each
// operation's body has eight properties, two of them $refs to components.
func operations(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, `  /op_%d:
    post:
      operationId: op%d
      summary: Do the thing number %d
      description: A longer description of what operation %d does, and why one would call it.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name, count]
              properties:
                name: {type: string, description: The name of the thing, minLength: 1, maxLength: 100}
                count: {type: integer, minimum: 0, maximum: 1000, default: 1}
                tags: {type: array, items: {type: string}, maxItems: 10}
                address: {$ref: '#/components/schemas/Address%d'}
                owner: {$ref: '#/components/schemas/Person'}
                kind: {type: string, enum: [a, b, c, d]}
                note: {type: [string, "null"]}
                flag: {type: boolean}
`, i, i, i, i, i%50)
	}
	b.WriteString("components:\n  schemas:\n    Person: {type: object, properties: {name: {type: string}, email: {type: string, format: email}}}\n")
	for i := range 50 {
		fmt.Fprintf(&b, "    Address%d: {type: object, required: [street], properties: {street: {type: string}, city: {type: string}, zip: {type: string, pattern: '^[0-9]{5}$'}}}\n", i)
	}
	return b.String()
}

// BenchmarkLoadMaxSize reads documents of about the largest size Load
// reads: as a server might have (YAML and JSON), and crafted ones that
// exhaust each budget.
func BenchmarkLoadMaxSize(b *testing.B) {
	ops := operations(4000)
	var v any
	if err := yaml.Unmarshal([]byte(ops), &v); err != nil {
		b.Fatal(err)
	}
	opsJSON, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, doc string }{
		{"operations", ops},
		{"operations as JSON", string(opsJSON)},
		{"nested aliases", nestedAliases(250, 240, 48000)},
		{"wide", wide(44000)},
		{"wide path item", widePathItem(1000, 60000)},
		{"allOf refs", allOfRefs(30, true) + strings.Repeat("    # padding\n", 280000)},
	} {
		if len(c.doc) > maxDocument {
			b.Fatalf("%s: %d bytes", c.name, len(c.doc))
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				Load([]byte(c.doc))
			}
		})
	}
}
