package openapi

import (
	"errors"
	"fmt"
	"mime"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// A Document is what mcpdoor reads of an OpenAPI document: its operations.
type Document struct {
	// Version is the document's openapi field, such as "3.0.3" or "3.1.0".
	Version string
	// Operations are the document's operations, in the document's order.
	Operations []*Operation
	// Warnings are problems that do not stop the document from being used:
	// an x-mcp- extension mcpdoor does not know (a typo, probably).
	Warnings []string
}

// Operation returns the operation of the method (upper case) on the path,
// or nil.
func (d *Document) Operation(method, path string) *Operation {
	for _, op := range d.Operations {
		if op.Method == method && op.Path == path {
			return op
		}
	}
	return nil
}

// An Operation is one method on one path.
type Operation struct {
	Method string // upper case: "POST"
	Path   string // as the document writes it: "/add_book"
	Line   int    // where the operation starts in the document
	ID     string // operationId
	// Summary and Description are the operation's own.
	Summary, Description string
	// Input is the request body's JSON schema as a tool's input: an object
	// schema in JSON Schema 2020-12, with every $ref resolved (inlined, or
	// for a component that refers to itself, carried in $defs) and OpenAPI
	// 3.0's keywords converted. It resolves with jsonschema-go. An
	// operation without a request body has the schema of any object. Nil
	// when NoInput says why.
	Input *jsonschema.Schema
	// NoInput says why Input is nil: a request body that is not JSON, a
	// schema that is not an object's, a construct mcpdoor cannot follow.
	NoInput string
	// HasBody reports whether the operation describes a request body.
	HasBody bool
	// Params are the operation's path and query parameters, the path
	// item's included (the operation's own win), in the document's order.
	Params []Param
	// Annotations are the operation's x-mcp- hints.
	Annotations Annotations
	// Exclude is x-mcp-exclude: keep the operation off MCP.
	Exclude bool
}

// Annotations are an operation's MCP tool annotations, from its
// x-mcp-read-only, x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world
// and x-mcp-title extensions. Nil is unset.
type Annotations struct {
	Title       string
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// IsZero reports whether no annotation is set.
func (a Annotations) IsZero() bool { return a == Annotations{} }

// methods are the operations a path item can hold.
var methods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}

// supportedVersion matches 3.0.x and 3.1.x (and 3.0, 3.1, as YAML reads an
// unquoted 3.1).
var supportedVersion = regexp.MustCompile(`^3\.[01](\.\d+)?(-.+)?$`)

// Load reads an OpenAPI 3.0 or 3.1 document, JSON or YAML, and converts
// each operation's JSON request body schema to a tool's input schema.
//
// A document that is malformed, or whose $ref points to nothing, is an
// *Error naming the line and the place. An operation that Load can read but
// not serve as a tool (a body that is not JSON, a $ref to another file) is
// kept, with NoInput saying why.
func Load(data []byte) (*Document, error) {
	if len(data) > maxDocument {
		return nil, &Error{Problem: fmt.Sprintf("the document is %d bytes; mcpdoor reads documents of up to %d bytes (%d MiB)", len(data), maxDocument, maxDocument>>20)}
	}
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	r := &reader{
		root:    root,
		doc:     new(Document),
		left:    budget{documentValues, documentSchemas, documentBytes},
		keys:    maxKeys,
		merged:  maxMerged,
		maps:    make(map[*yaml.Node][]pair),
		open:    make(map[*yaml.Node]bool),
		tainted: make(map[*yaml.Node]bool),
		targets: make(map[string]*yaml.Node),
		index:   make(map[*yaml.Node]map[string]*yaml.Node),
		leaves:  make(map[*yaml.Node]*decoded),
	}
	if deref(root).Kind != yaml.MappingNode {
		return nil, errorf(root, nil, "the document must be a mapping (an OpenAPI object), got %s", describe(root))
	}
	doc, top := r.doc, at("#")
	tps, err := r.pairs(root, top)
	if err != nil {
		return nil, err
	}
	switch v := get(tps, "openapi"); {
	case v != nil:
		if doc.Version, err = str(v, top.child("openapi")); err != nil {
			return nil, err
		}
		if !supportedVersion.MatchString(doc.Version) {
			return nil, errorf(v, top.child("openapi"), "version %q is not supported; want 3.0.x or 3.1.x", doc.Version)
		}
	case get(tps, "swagger") != nil:
		return nil, errorf(get(tps, "swagger"), top.child("swagger"), "Swagger 2.0 is not supported; convert the document to OpenAPI 3")
	default:
		return nil, errorf(root, top, "no openapi field: this is not an OpenAPI document")
	}
	r.v30 = strings.HasPrefix(doc.Version, "3.0.")
	paths := get(tps, "paths")
	if paths == nil || deref(paths).ShortTag() == "!!null" {
		return doc, nil
	}
	pps, err := r.pairs(paths, top.child("paths"))
	if err != nil {
		return nil, err
	}
	for _, pp := range pps {
		if err := r.pathItem(pp, top.child("paths").child(pp.key)); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// reader reads one document's operations.
type reader struct {
	root   *yaml.Node
	v30    bool
	doc    *Document
	left   budget // what the document's schemas may still cost
	keys   int    // keys the document may still read outside schemas
	merged int    // keys its merge keys may still copy

	maps    map[*yaml.Node][]pair                // the pairs of each mapping read so far
	open    map[*yaml.Node]bool                  // the mappings whose merge keys pairs is following
	tainted map[*yaml.Node]bool                  // mappings whose pairs depend on where merging started
	targets map[string]*yaml.Node                // each $ref read so far → what it points to
	index   map[*yaml.Node]map[string]*yaml.Node // the mappings $refs look into, by key
	leaves  map[*yaml.Node]*decoded              // each schema's keywords without subschemas, decoded
}

func (r *reader) pathItem(pp pair, where *pointer) error {
	if !strings.HasPrefix(pp.key, "/") {
		return &Error{Line: pp.kline, Where: where.String(), Problem: fmt.Sprintf("the path %q must start with /", pp.key)}
	}
	item, where, err := r.follow(pp.value, where, 0)
	if err != nil {
		return err
	}
	ips, err := r.pairs(item, where) // follow has counted its keys
	if err != nil {
		return err
	}
	var shared []Param // the path item's parameters, every operation's
	if v := get(ips, "parameters"); v != nil {
		if shared, err = r.params(v, where.child("parameters")); err != nil {
			return err
		}
	}
	for _, ip := range ips {
		if !methods[ip.key] {
			continue
		}
		op, err := r.operation(strings.ToUpper(ip.key), pp.key, ip, where.child(ip.key))
		if err != nil {
			return err
		}
		op.Params = mergeParams(shared, op.Params)
		r.doc.Operations = append(r.doc.Operations, op)
	}
	return nil
}

// follow returns the object n is, or the one its $ref points to (path
// items, request bodies), with the pointer where it is.
func (r *reader) follow(n *yaml.Node, where *pointer, depth int) (*yaml.Node, *pointer, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil, errorf(n, where, "want a mapping, got %s", describe(n))
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return nil, nil, err
	}
	if err := r.readKeys(len(ps), n, where); err != nil {
		return nil, nil, err
	}
	refNode := get(ps, "$ref")
	if refNode == nil {
		return n, where, nil
	}
	ref, err := str(refNode, where.child("$ref"))
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasPrefix(ref, "#") {
		return nil, nil, errorf(refNode, where, "the $ref %q points outside the document; bundle the document into one file", ref)
	}
	if depth > 32 {
		return nil, nil, errorf(refNode, where, "the $ref %q is part of a loop of $refs", ref)
	}
	target, err := r.lookup(ref, refNode, where)
	if err != nil {
		return nil, nil, err
	}
	return r.follow(target, at(ref), depth+1)
}

func (r *reader) operation(method, path string, p pair, where *pointer) (*Operation, error) {
	op := &Operation{Method: method, Path: path, Line: p.kline}
	ps, err := r.pairs(p.value, where)
	if err != nil {
		return nil, err
	}
	if err := r.readKeys(len(ps), p.value, where); err != nil {
		return nil, err
	}
	for _, p := range ps {
		at := where.child(p.key)
		switch p.key {
		case "operationId":
			op.ID, err = str(p.value, at)
		case "summary":
			op.Summary, err = str(p.value, at)
		case "description":
			op.Description, err = str(p.value, at)
		case "x-mcp-title":
			op.Annotations.Title, err = str(p.value, at)
		case "x-mcp-read-only":
			op.Annotations.ReadOnly, err = boolPtr(p.value, at)
		case "x-mcp-destructive":
			op.Annotations.Destructive, err = boolPtr(p.value, at)
		case "x-mcp-idempotent":
			op.Annotations.Idempotent, err = boolPtr(p.value, at)
		case "x-mcp-open-world":
			op.Annotations.OpenWorld, err = boolPtr(p.value, at)
		case "x-mcp-exclude":
			op.Exclude, err = boolean(p.value, at)
		case "parameters":
			op.Params, err = r.params(p.value, at)
		default:
			if strings.HasPrefix(p.key, "x-mcp-") {
				r.doc.Warnings = append(r.doc.Warnings, (&Error{Line: p.kline, Where: at.String(),
					Problem: "unknown extension, ignored; mcpdoor reads x-mcp-read-only, x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title and x-mcp-exclude"}).Error())
			}
		}
		if err != nil {
			return nil, err
		}
	}
	body := get(ps, "requestBody")
	if body == nil {
		op.Input = noArguments()
		return op, nil
	}
	op.HasBody = true
	op.Input, op.NoInput, err = r.body(body, where.child("requestBody"))
	return op, err
}

func boolPtr(n *yaml.Node, where *pointer) (*bool, error) {
	b, err := boolean(n, where)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// body returns a request body's input schema, or why it has none.
func (r *reader) body(n *yaml.Node, where *pointer) (*jsonschema.Schema, string, error) {
	n, where, err := r.follow(n, where, 0)
	if err != nil {
		return nil, "", err
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return nil, "", err
	}
	content := get(ps, "content")
	if content == nil {
		return &jsonschema.Schema{Type: "object"}, "", nil
	}
	where = where.child("content")
	cps, err := r.pairs(content, where)
	if err != nil {
		return nil, "", err
	}
	if err := r.readKeys(len(cps), content, where); err != nil {
		return nil, "", err
	}
	var media *pair
	var others []string
	for i, cp := range cps {
		switch mt, _, _ := mime.ParseMediaType(cp.key); {
		case mt == "application/json":
			media = &cps[i]
		case strings.HasSuffix(mt, "+json"):
			if media == nil {
				media = &cps[i]
			}
		default:
			others = append(others, cp.key)
		}
	}
	if media == nil {
		if len(others) == 0 {
			return &jsonschema.Schema{Type: "object"}, "", nil
		}
		return nil, fmt.Sprintf("the request body is %s; only an application/json (or +json) body can carry a tool's arguments", strings.Join(others, ", ")), nil
	}
	where = where.child(media.key)
	mps, err := r.pairs(media.value, where)
	if err != nil {
		return nil, "", err
	}
	if err := r.readKeys(len(mps), media.value, where); err != nil {
		return nil, "", err
	}
	schema := get(mps, "schema")
	if schema == nil {
		return &jsonschema.Schema{Type: "object"}, "", nil
	}
	return r.schemaAt(schema, where.child("schema"), "the request body's schema", objectRoot)
}

// schemaAt converts the schema n at where (a request body's or a
// parameter's) and resolves it, or says why it cannot be served. subject
// names the schema in the reason: "the request body's schema". shape,
// when not nil, checks and adjusts the converted schema before it is
// resolved, returning why it cannot be served, or "".
func (r *reader) schemaAt(n *yaml.Node, where *pointer, subject string, shape func(*jsonschema.Schema) string) (*jsonschema.Schema, string, error) {
	s, err := r.inputSchema(n, where, subject)
	if u := (*unsupported)(nil); errors.As(err, &u) {
		return nil, u.msg, nil
	}
	if err != nil {
		return nil, "", err
	}
	if shape != nil {
		if why := shape(s); why != "" {
			return nil, why, nil
		}
	}
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		return nil, subject + " does not resolve: " + clip(err.Error(), maxReason), nil
	}
	return s, "", nil
}

// maxReason bounds the bytes of a resolver's error kept in a reason: it
// can name every branch of an anyOf and print the value for each.
const maxReason = 500

// clip returns s cut to at most n bytes, on a character boundary, with
// "..." if cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// noArguments is the input schema of an operation without a request body:
// the empty object, as jsonschema-go infers it for struct{}.
func noArguments() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
}

// objectRoot makes s an object schema, as a tool's input is; or says why
// it cannot be one.
func objectRoot(s *jsonschema.Schema) string {
	if t := nonObject(s); t != "" {
		return fmt.Sprintf("the request body's schema is of type %s; a tool's arguments are a JSON object", t)
	}
	// Arguments are an object: say so to the client, also when the schema
	// leaves the type open or allows null.
	s.Type, s.Types = "object", nil
	return ""
}

// nonObject returns the types s or one of its allOf members restricts
// instances to when they exclude objects ("array", "string or null"), or
// "".
func nonObject(s *jsonschema.Schema) string {
	switch {
	case s.Type != "" && s.Type != "object":
		return s.Type
	case s.Types != nil && !slices.Contains(s.Types, "object"):
		return strings.Join(s.Types, " or ")
	}
	for _, a := range s.AllOf {
		if t := nonObject(a); t != "" {
			return t
		}
	}
	return ""
}
