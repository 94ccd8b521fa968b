package openapi

import (
	"fmt"
	"mime"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Swagger 2.0, as swaggo and go-swagger write it, says what OpenAPI 3
// says in other places, and Load reads it there:
//
//   - basePath is the base of every path (servers' url in OpenAPI 3);
//   - definitions are the components' schemas: a $ref names them where
//     they are, "#/definitions/Pet", as "#/parameters/..." and
//     "#/responses/..." name the others;
//   - a body parameter is the request body, and formData parameters are a
//     form (application/x-www-form-urlencoded, or multipart/form-data when
//     consumes says so): never a tool's JSON arguments;
//   - a path or query parameter holds its schema's keywords itself (type,
//     format, items, enum, the bounds), not under schema;
//   - consumes and produces, the document's or the operation's, are the
//     media types of the request body and of the responses, whose schema
//     is their own, not under content; a body or a response schema with
//     no media type given is JSON.
//
// Its schemas are JSON Schema draft 4's, read as OpenAPI 3.0's are.

// paramKeywords are the keywords of a Swagger 2.0 path or query parameter
// that make its schema.
var paramKeywords = []string{"type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
	"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf"}

// v2Param reads the rest of the Swagger 2.0 parameter p, whose pairs are
// ps, at where: a body parameter's schema, kept for formOrBody; a path or
// query parameter's schema, from its own keywords.
func (r *reader) v2Param(p *Param, ps []pair, n *yaml.Node, where *pointer) (*Param, error) {
	switch p.In {
	case "formData":
		return p, nil
	case "body":
		if p.schema = get(ps, "schema"); p.schema == nil {
			return nil, errorf(n, where, "a body parameter needs a schema")
		}
		p.at = where.child("schema")
		return p, nil
	}
	var keep []pair
	for _, pp := range ps {
		if slices.Contains(paramKeywords, pp.key) {
			keep = append(keep, pp)
		}
	}
	if t := get(keep, "type"); t == nil {
		p.NoSchema = "the parameter has no type"
		return p, nil
	} else if deref(t).Value == "file" {
		p.NoSchema = "the parameter is a file"
		return p, nil
	}
	schema := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: flatten(keep)}
	var err error
	if p.Schema, p.NoSchema, err = r.schemaAt(schema, where, "the parameter's schema", false); err != nil {
		return nil, err
	}
	return p, nil
}

// formOrBody takes a Swagger 2.0 operation's body and formData parameters
// out of its Params, and makes its request body of them.
func (r *reader) formOrBody(op *Operation, where *pointer) error {
	consumes := op.Consumes
	if consumes == nil {
		consumes = r.consumes
	}
	op.Consumes = nil
	var body *Param
	form := false
	params := op.Params[:0:0]
	for i := range op.Params {
		switch p := &op.Params[i]; p.In {
		case "body":
			body = p
		case "formData":
			form = true
		default:
			params = append(params, *p)
		}
	}
	op.Params = params
	switch {
	case body != nil && form:
		return errorf(nil, where, "an operation has a body parameter or formData parameters, not both")
	case form:
		op.HasBody = true
		for _, t := range consumes {
			if mt, _, _ := mime.ParseMediaType(t); mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
				op.Consumes = append(op.Consumes, t)
			}
		}
		if op.Consumes == nil {
			op.Consumes = []string{"application/x-www-form-urlencoded"}
		}
		op.NoInput = fmt.Sprintf("the request body is a form (%s, of formData parameters); only an application/json (or +json) body can carry a tool's arguments", strings.Join(op.Consumes, ", "))
	case body != nil:
		op.HasBody = true
		op.Consumes = consumes
		if len(consumes) == 0 {
			op.Consumes = []string{"application/json"}
		}
		if !jsonMedia(op.Consumes) {
			op.input(fmt.Sprintf("the request body is %s; only an application/json (or +json) body can carry a tool's arguments", strings.Join(op.Consumes, ", ")))
			return nil
		}
		if why := fileSchema(r, body.schema, body.at); why != "" {
			op.input(why)
			return nil
		}
		s, why, err := r.schemaAt(body.schema, body.at, "the request body's schema", false)
		if err != nil {
			return err
		}
		if s != nil && s.Description == "" && nonObject(s) != "" {
			s.Description = body.Description // what the tool's argument "body" says of itself
		}
		op.Body = s
		op.input(why)
	default:
		op.Input = noArguments()
	}
	return nil
}
