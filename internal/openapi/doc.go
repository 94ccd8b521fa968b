// Package openapi reads what mcpdoor needs of an OpenAPI 3.0 or 3.1
// document, or a Swagger 2.0 one: for each operation, its full path, the
// JSON request body's schema as a tool's input schema (JSON Schema
// 2020-12, as jsonschema-go validates it), the success response's JSON
// schema as its output schema, the media types of both, its path and query
// parameters with their schemas, the operationId, the summary and
// description, and the x-mcp- extensions.
//
//	doc, err := openapi.Load(data) // JSON or YAML
//	op := doc.Operation("POST", "/api/add_book")
//	// op.Input, op.Output, op.Params, op.Summary, op.Annotations, op.Exclude
//
// What Load promises:
//
//   - An operation's path is its full path: the document's base (basePath,
//     or the first server's url path; see servers.go), then its own.
//   - A Swagger 2.0 document reads as the OpenAPI 3 one it converts to (see
//     swagger.go): a body parameter is the request body, formData
//     parameters a form, consumes and produces the media types.
//   - An output schema is the 200 response's JSON schema, else the 201's,
//     converted as an input schema is, but with read-only properties kept
//     and write-only ones left out. Response schemas have a budget of
//     their own (see below), so that they never starve request schemas.
//   - Every $ref within the document is resolved. A component is inlined
//     where it is used; one that refers to itself is carried once in the
//     schema's $defs. A $ref that points to nothing is an error; one to
//     another file leaves the operation without an input schema, with the
//     reason.
//   - OpenAPI 3.0's keywords become 2020-12's: nullable adds "null" to the
//     type, a boolean exclusiveMinimum/exclusiveMaximum becomes the
//     numeric form, example becomes examples. discriminator, xml,
//     externalDocs and x- extensions are left out; format is kept.
//   - Read-only properties are left out of an input schema: OpenAPI sends
//     them in responses only.
//   - A tool's input is an object: a body schema without a type gets type
//     object, and an operation without a body takes any object. A body that
//     is not application/json (or +json), or whose schema is not an
//     object's, leaves the operation without an input schema, with the
//     reason.
//   - Load's work is bounded by what it builds, not by the document's
//     size alone: a document of up to 4 MiB whose YAML aliases, merge keys
//     or $refs would expand without end reads in a fraction of a second.
//     Past a bound, an operation is left without an input schema, with
//     the bound it exceeds as the reason (the request body's or the whole
//     document's: values, schemas, bytes of keys and strings), or Load
//     stops with an *Error naming it (keys in paths, keys copied by merge
//     keys, the document's size). So is a schema that a validator would
//     apply to the same value without end, or that would take too long
//     to check its defaults against.
//   - A parameter's schema is converted as a body's is, and may be of any
//     type. Parameters of the path item and of the operation are merged,
//     the operation's winning; header and cookie parameters are left out.
//   - Load never panics, whatever the bytes (it is fuzzed).
package openapi
