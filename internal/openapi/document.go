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
	// Version is the document's openapi field, such as "3.0.3" or "3.1.0",
	// or its swagger field, "2.0".
	Version string
	// Operations are the document's operations, in the document's order.
	Operations []*Operation
	// Warnings are problems that do not stop the document from being used:
	// an x-mcp- extension mcpdoor does not know (a typo, probably), servers
	// whose paths disagree.
	Warnings []string
}

// Operation returns the operation of the method (upper case) on the full
// path (see Operation.Path), or nil.
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
	// Path is the operation's full path, the path a server serves it at:
	// the path of the document's base (Swagger 2.0's basePath; OpenAPI 3's
	// servers[].url, the operation's or its path item's first, see
	// servers.go), then the path as the document writes it: "/api" and
	// "/books/{id}" give "/api/books/{id}".
	Path string
	Line int    // where the operation starts in the document
	ID   string // operationId
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
	// Body is the JSON request body's schema, converted as Input is, of
	// whatever type the document gives it (an array, for a bulk route);
	// nil without a JSON body schema, or when NoInput says why it cannot
	// be served. For an object body, Input is Body.
	Body *jsonschema.Schema
	// HasBody reports whether the operation describes a request body.
	HasBody bool
	// Consumes are the media types the request body may have, in the
	// document's order: its content's (OpenAPI 3), or consumes (Swagger
	// 2.0, where formData parameters are a form).
	Consumes []string
	// Params are the operation's path and query parameters, the path
	// item's included (the operation's own win), in the document's order.
	Params []Param
	// Output is the success response's JSON schema (the 200 response's,
	// else the 201's; application/json, else a +json type), converted as
	// Input is but for a response: read-only properties are kept and
	// write-only ones left out. Nil when the response has none, or when
	// NoOutput says why it cannot be served.
	Output   *jsonschema.Schema
	NoOutput string
	// Produces are the media types of the success response (the 200's,
	// else the 201's, else the first 2xx's), in the document's order: its
	// content's (OpenAPI 3), or produces (Swagger 2.0).
	Produces []string
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

// Load reads an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one (what
// swaggo writes), JSON or YAML, and converts each operation's JSON request
// body schema to a tool's input schema, and its success response's JSON
// schema to a tool's output schema.
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
		outLeft: budget{documentValues, documentSchemas, documentBytes},
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
		v := get(tps, "swagger")
		if doc.Version, err = str(v, top.child("swagger")); err != nil {
			return nil, err
		}
		if doc.Version != "2.0" {
			return nil, errorf(v, top.child("swagger"), "Swagger version %q is not supported; want 2.0 (or openapi 3.0.x or 3.1.x)", doc.Version)
		}
		r.v2 = true
	default:
		return nil, errorf(root, top, "no openapi field: this is not an OpenAPI document")
	}
	// Swagger 2.0's schemas are JSON Schema draft 4's, as OpenAPI 3.0's are.
	r.v30 = r.v2 || strings.HasPrefix(doc.Version, "3.0.")
	base, err := r.base(tps, top)
	if err != nil {
		return nil, err
	}
	paths := get(tps, "paths")
	if paths == nil || deref(paths).ShortTag() == "!!null" {
		return doc, nil
	}
	pps, err := r.pairs(paths, top.child("paths"))
	if err != nil {
		return nil, err
	}
	for _, pp := range pps {
		if err := r.pathItem(pp, top.child("paths").child(pp.key), base); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// reader reads one document's operations.
type reader struct {
	root *yaml.Node
	v30  bool // the schemas are draft 4's: OpenAPI 3.0, Swagger 2.0
	v2   bool // Swagger 2.0
	doc  *Document
	left budget // what the document's request schemas may still cost
	// outLeft is what its response schemas may still cost: a budget of
	// their own, so that a document's many responses (every GET has one)
	// leave its request schemas, which decide what a tool accepts, theirs.
	outLeft budget
	keys    int // keys the document may still read outside schemas
	merged  int // keys its merge keys may still copy

	// consumes and produces are a Swagger 2.0 document's own, which its
	// operations inherit.
	consumes, produces []string

	maps    map[*yaml.Node][]pair                // the pairs of each mapping read so far
	open    map[*yaml.Node]bool                  // the mappings whose merge keys pairs is following
	tainted map[*yaml.Node]bool                  // mappings whose pairs depend on where merging started
	targets map[string]*yaml.Node                // each $ref read so far → what it points to
	index   map[*yaml.Node]map[string]*yaml.Node // the mappings $refs look into, by key
	leaves  map[*yaml.Node]*decoded              // each schema's keywords without subschemas, decoded
}

// pathItem reads the operations of one path item, whose path is under
// the path base ("" or "/api").
func (r *reader) pathItem(pp pair, where *pointer, base string) error {
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
	if v := get(ips, "servers"); v != nil && !r.v2 {
		if base, err = r.servers(v, where.child("servers")); err != nil {
			return err
		}
	}
	for _, ip := range ips {
		if !methods[ip.key] {
			continue
		}
		op, err := r.operation(strings.ToUpper(ip.key), base, pp.key, ip, where.child(ip.key))
		if err != nil {
			return err
		}
		op.Params = mergeParams(shared, op.Params)
		if r.v2 {
			if err := r.formOrBody(op, where.child(ip.key)); err != nil {
				return err
			}
		}
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

// operation reads the operation p of method on the path, under base.
func (r *reader) operation(method, base, path string, p pair, where *pointer) (*Operation, error) {
	op := &Operation{Method: method, Path: join(base, path), Line: p.kline}
	ps, err := r.pairs(p.value, where)
	if err != nil {
		return nil, err
	}
	if err := r.readKeys(len(ps), p.value, where); err != nil {
		return nil, err
	}
	if v := get(ps, "servers"); v != nil && !r.v2 {
		if base, err = r.servers(v, where.child("servers")); err != nil {
			return nil, err
		}
		op.Path = join(base, path)
	}
	produces := r.produces
	for _, p := range ps {
		if produces, err = r.operationKey(op, p, where.child(p.key), produces); err != nil {
			return nil, err
		}
	}
	if v := get(ps, "responses"); v != nil {
		if err := r.responses(op, v, where.child("responses"), produces); err != nil {
			return nil, err
		}
	}
	if r.v2 {
		return op, nil // the body is among the parameters (formOrBody)
	}
	body := get(ps, "requestBody")
	if body == nil {
		op.Input = noArguments()
		return op, nil
	}
	op.HasBody = true
	var why string
	op.Consumes, op.Body, why, err = r.body(body, where.child("requestBody"))
	if err != nil {
		return nil, err
	}
	op.input(why)
	return op, nil
}

// operationKey reads the key p, at at, of operation op: what it says of
// the operation, its parameters and (Swagger 2.0) its media types; it
// returns the media types the operation produces, which p may set.
func (r *reader) operationKey(op *Operation, p pair, at *pointer, produces []string) ([]string, error) {
	var err error
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
	case "consumes":
		if r.v2 {
			op.Consumes, err = r.mediaTypes(p.value, at)
		}
	case "produces":
		if r.v2 {
			produces, err = r.mediaTypes(p.value, at)
		}
	default:
		if strings.HasPrefix(p.key, "x-mcp-") {
			r.doc.Warnings = append(r.doc.Warnings, (&Error{Line: p.kline, Where: at.String(),
				Problem: "unknown extension, ignored; mcpdoor reads x-mcp-read-only, x-mcp-destructive, x-mcp-idempotent, x-mcp-open-world, x-mcp-title and x-mcp-exclude"}).Error())
		}
	}
	return produces, err
}

// input sets op's Input from its Body, or NoInput to why, or to why Body
// cannot be a tool's arguments.
func (op *Operation) input(why string) {
	switch {
	case why != "":
		op.NoInput = why
	case op.Body == nil:
		op.Input = &jsonschema.Schema{Type: "object"} // a JSON body, any object
	default:
		in := *op.Body // objectRoot sets the root's type
		if op.NoInput = objectRoot(&in); op.NoInput == "" {
			op.Input = &in
			op.Body = &in
		}
	}
}

func boolPtr(n *yaml.Node, where *pointer) (*bool, error) {
	b, err := boolean(n, where)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// body reads an OpenAPI 3 request body: its media types, its JSON schema
// (nil when it gives none), or why it cannot be served.
func (r *reader) body(n *yaml.Node, where *pointer) (types []string, schema *jsonschema.Schema, why string, err error) {
	n, where, err = r.follow(n, where, 0)
	if err != nil {
		return nil, nil, "", err
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return nil, nil, "", err
	}
	content := get(ps, "content")
	if content == nil {
		return nil, nil, "", nil
	}
	types, media, sn, where, err := r.content(content, where.child("content"))
	if err != nil || media == "" {
		if err == nil && len(types) > 0 {
			why = fmt.Sprintf("the request body is %s; only an application/json (or +json) body can carry a tool's arguments", strings.Join(types, ", "))
		}
		return types, nil, why, err
	}
	if sn == nil {
		return types, nil, "", nil
	}
	schema, why, err = r.schemaAt(sn, where, "the request body's schema", false)
	return types, schema, why, err
}

// content reads a content mapping (a request body's, a response's): its
// media types, the JSON one mcpdoor reads (application/json, else the
// first +json; "" for none), and that one's schema node (nil for none)
// with its place.
func (r *reader) content(n *yaml.Node, where *pointer) (types []string, media string, schema *yaml.Node, at *pointer, err error) {
	cps, err := r.pairs(n, where)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if err := r.readKeys(len(cps), n, where); err != nil {
		return nil, "", nil, nil, err
	}
	var chosen *pair
	for i, cp := range cps {
		types = append(types, cp.key)
		switch mt, _, _ := mime.ParseMediaType(cp.key); {
		case mt == "application/json":
			chosen = &cps[i]
		case strings.HasSuffix(mt, "+json"):
			if chosen == nil {
				chosen = &cps[i]
			}
		}
	}
	if chosen == nil {
		return types, "", nil, nil, nil
	}
	where = where.child(chosen.key)
	mps, err := r.pairs(chosen.value, where)
	if err != nil {
		return nil, "", nil, nil, err
	}
	if err := r.readKeys(len(mps), chosen.value, where); err != nil {
		return nil, "", nil, nil, err
	}
	return types, chosen.key, get(mps, "schema"), where.child("schema"), nil
}

// schemaAt converts the schema n at where (a request body's, a
// parameter's, or with output a response's) and resolves it, or says why
// it cannot be served. subject names the schema in the reason: "the
// request body's schema".
func (r *reader) schemaAt(n *yaml.Node, where *pointer, subject string, output bool) (*jsonschema.Schema, string, error) {
	s, err := r.toolSchema(n, where, subject, output)
	if u := (*unsupported)(nil); errors.As(err, &u) {
		return nil, u.msg, nil
	}
	if err != nil {
		return nil, "", err
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
