package harvest

import (
	"fmt"
	"mime"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// Under mcp.rest every route of the methods named is a tool, except the
// routes that are for a browser: a server-rendered UI's pages and forms
// (signup, login, logout, set-password) are no API. A tool of one would
// act for the model through a form meant for a person, or fail on the
// form's token, and on a 100-route server nobody means to expose them. A
// route's answer is only known once it is called, so Install leaves off
// what it can tell is for a browser, and a call warns of the rest:
//
//   - With Config.OpenAPI, the document describes the API: a route it does
//     not describe is left off, and so is one it describes as reading a
//     form (application/x-www-form-urlencoded, multipart/form-data, Swagger
//     2.0's formData) or answering text/html only.
//   - Without an operation of the document, the facts mcpdoor gen read
//     from the route's handler: one that reads a form, or answers a page
//     (text/html) and no JSON, is left off.
//   - A route behind a CSRF middleware (its name says csrf, xsrf or
//     nosurf) is a browser's form.
//   - A typed handler (Handler) answers JSON, and a route whose tool
//     Config.Declared describes is asked for: each is a tool whatever the
//     rest says. Naming a route in mcp.rest.names makes it a tool too.
//   - A tool whose route answers text/html is warned about at its first
//     such answer (see pageWarning), naming mcp.exclude.
//
// The report lists each route left off, with the reason and the fix.

// leftOff says why the REST route rt, whose operation in doc is op (nil
// for none), is left off by default, or "" when it is a tool.
func leftOff(declared map[string]Declaration, doc *openapi.Document, op *openapi.Operation, rt *detect.Route, gen *GenIndex) string {
	if _, typed := rt.Endpoint.(Typed); typed {
		return ""
	}
	name := detect.RESTName(rt.Method, rt.Pattern)
	if op != nil && op.ID != "" {
		name = op.ID
	}
	if _, ok := declared[name]; ok {
		return ""
	}
	const fix = "; name it in mcp.rest.names to make it a tool"
	for _, mw := range rt.MiddlewareNames {
		if csrfMiddleware(mw) {
			return fmt.Sprintf("it runs %s, a browser form's check, whose token an MCP client has not", mw) + fix
		}
	}
	if op == nil {
		if why := gen.peek(rt).browser(); why != "" {
			return why + fix
		}
	}
	switch {
	case doc == nil:
		return ""
	case op == nil:
		return "the OpenAPI document (Config.OpenAPI) describes the API, and not this route (a page, or a route for operators); describe it there, or name it in mcp.rest.names, to make it a tool"
	case op.HasBody && op.Input == nil && hasForm(op.Consumes):
		return fmt.Sprintf("the OpenAPI document says it reads a form (%s), a page's for a browser", strings.Join(op.Consumes, ", ")) + fix
	case onlyHTML(op.Produces):
		return fmt.Sprintf("the OpenAPI document says it answers %s, a page for a browser", strings.Join(op.Produces, ", ")) + fix
	}
	return ""
}

// csrfMiddleware reports whether the middleware called name checks a
// browser form's CSRF token: gorilla/csrf's, justinas/nosurf's, or one of
// a name that says so.
func csrfMiddleware(name string) bool {
	n := strings.ToLower(name[strings.LastIndexByte(name, '/')+1:])
	return strings.Contains(n, "csrf") || strings.Contains(n, "xsrf") || strings.Contains(n, "nosurf")
}

// hasForm reports whether media types hold a form's.
func hasForm(types []string) bool {
	for _, t := range types {
		if mt, _, _ := mime.ParseMediaType(t); mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
			return true
		}
	}
	return false
}

// onlyHTML reports whether media types are HTML's and nothing else.
func onlyHTML(types []string) bool {
	for _, t := range types {
		if !IsHTML(t) {
			return false
		}
	}
	return len(types) > 0
}

// IsHTML reports whether a Content-Type is a page's.
func IsHTML(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/html" || mt == "application/xhtml+xml"
}
