package openapi

import (
	"fmt"
	"mime"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A tool's output schema is its success response's JSON schema: the 200
// response's, else the 201's (what a create answers). Other 2xx
// responses (202, 204) carry no schema a call's result follows, but their
// media types say what the route answers (Operation.Produces).

// responses reads an operation's responses at where into op: the success
// response's media types (produces are Swagger 2.0's, which its responses
// have in place of content) and JSON schema.
func (r *reader) responses(op *Operation, n *yaml.Node, where *pointer, produces []string) error {
	ps, err := r.pairs(n, where)
	if err != nil {
		return err
	}
	if err := r.readKeys(len(ps), n, where); err != nil {
		return err
	}
	code := ""
	switch {
	case get(ps, "200") != nil:
		code = "200"
	case get(ps, "201") != nil:
		code = "201"
	default:
		for _, p := range ps {
			if strings.HasPrefix(p.key, "2") {
				code = p.key
				break
			}
		}
	}
	if code == "" {
		return nil
	}
	resp, at, err := r.follow(get(ps, code), where.child(code), 0)
	if err != nil {
		return err
	}
	rps, err := r.pairs(resp, at)
	if err != nil {
		return err
	}
	success := code == "200" || code == "201"
	if !r.v2 {
		content := get(rps, "content")
		if content == nil {
			return nil
		}
		types, media, schema, sat, err := r.content(content, at.child("content"))
		if err != nil {
			return err
		}
		op.Produces = types
		if !success || media == "" || schema == nil {
			return nil
		}
		op.Output, op.NoOutput, err = r.schemaAt(schema, sat, "the response's schema", true)
		return err
	}
	schema := get(rps, "schema")
	if schema == nil {
		op.Produces = produces
		return nil
	}
	if len(produces) == 0 {
		produces = []string{"application/json"} // a schema, and no type: JSON, as generators mean it
	}
	op.Produces = produces
	if !success || !jsonMedia(produces) {
		return nil
	}
	if why := fileSchema(r, schema, at.child("schema")); why != "" {
		op.NoOutput = why
		return nil
	}
	op.Output, op.NoOutput, err = r.schemaAt(schema, at.child("schema"), "the response's schema", true)
	return err
}

// jsonMedia reports whether types hold application/json or a +json type.
func jsonMedia(types []string) bool {
	for _, t := range types {
		if mt, _, _ := mime.ParseMediaType(t); mt == "application/json" || strings.HasSuffix(mt, "+json") {
			return true
		}
	}
	return false
}

// mediaTypes reads a Swagger 2.0 consumes or produces list.
func (r *reader) mediaTypes(n *yaml.Node, where *pointer) ([]string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, errorf(n, where, "want a list of media types, got %s", describe(n))
	}
	if err := r.readKeys(len(n.Content), n, where); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(n.Content))
	for i, v := range n.Content {
		t, err := str(v, where.elem(i))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// fileSchema says why the Swagger 2.0 schema n at where is none a tool can
// carry, when it is of type file (a download, an upload); else "".
func fileSchema(r *reader, n *yaml.Node, where *pointer) string {
	n, _, err := r.follow(n, where, 0)
	if err != nil {
		return "" // the conversion says what is wrong
	}
	ps, err := r.pairs(n, where)
	if err != nil {
		return ""
	}
	if t := get(ps, "type"); t != nil && deref(t).Value == "file" {
		return fmt.Sprintf("%s: a schema of type file is a file's bytes, not JSON", where.String())
	}
	return ""
}
