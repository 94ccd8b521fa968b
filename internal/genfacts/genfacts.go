// Package genfacts is the format of what mcpdoor gen writes into a
// package's generated file and Install reads back: the facts one package's
// handlers carry (their doc comments, the body each decodes, the query and
// path parameters each reads, what each answers), and how a handler is
// named so that the running program finds its facts.
//
// It is the one owner of that format, so that the generator (which the
// library does not import) and the library agree on every byte.
package genfacts

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Version is the format's version. A file of another version is not read:
// Install warns, naming the command that rewrites it.
const Version = 1

// File is the facts of one package.
type File struct {
	Version int `json:"v"`
	// Package is the package's path as the runtime names its functions
	// ("main" for a main package; see FuncName).
	Package string `json:"package"`
	// Handlers are the package's handlers and middlewares, in source
	// order: every one of them, those that read and write nothing too, so
	// that a handler missing from the file is known to be newer than it.
	Handlers []Handler `json:"handlers"`
	// Routes are the routes the package's code registers whose handler the
	// running program cannot tell by its function alone (a wrapper's,
	// which many routes share), or whose middleware decodes the body (a
	// generic one, whose instances share a name).
	Routes []Route `json:"routes,omitempty"`
}

// Route is one route as the code that registers it says.
type Route struct {
	// Method is the route's method; "" for every method (Handle).
	Method string `json:"method,omitempty"`
	// Pattern is the route's full pattern, as chi.Walk gives it.
	Pattern string `json:"pattern"`
	// Partial reports that Pattern is the end of the full pattern: the
	// generator could not tell where the route's router is mounted.
	Partial bool `json:"partial,omitempty"`
	// At is where the route is registered, "server.go:42".
	At string `json:"at"`
	// Func names the handler that serves the route by its runtime name;
	// Pkg and Closure name a closure by its package (as Package) and the
	// place of its func keyword. All empty when it is not known (Note).
	Func    string `json:"func,omitempty"`
	Pkg     string `json:"pkg,omitempty"`
	Closure string `json:"closure,omitempty"`
	// Body is the body a middleware of the route decodes, its type among
	// the file's.
	Body *Body `json:"body,omitempty"`
	// Note says why the handler is not known.
	Note string `json:"note,omitempty"`
}

// Handler is what one handler, or one middleware, reads and writes.
type Handler struct {
	// Func is the runtime name of a named function or method
	// ("example.com/blog/api.(*Store).CreateArticle"); empty for a
	// closure, which is known by At alone.
	Func string `json:"func,omitempty"`
	// At is the file (base name) and line of the handler's func keyword,
	// "articles.go:42": what runtime.Func.FileLine says of its entry.
	At string `json:"at"`
	// Middleware marks a func(http.Handler) http.Handler, whose handler's
	// reads are those of the routes it wraps; Func and At are the
	// middleware function's.
	Middleware bool `json:"middleware,omitempty"`
	// Wraps marks the handler a middleware returns around another: a
	// route served by it (mux.Handle("/x", auth(h))) is the other's, which
	// the facts cannot tell, and not a handler missing from the file.
	Wraps bool `json:"wraps,omitempty"`
	// Delegates marks a handler that serves its requests with another
	// handler it is given (a wrapper's ServeHTTP, an adapter's closure):
	// the facts of a route it serves are those of the route's
	// registration (File.Routes), and without one the route has none.
	Delegates bool `json:"delegates,omitempty"`
	// Doc is the doc comment: of the function, of the method, or of the
	// factory that returns the closure.
	Doc string `json:"doc,omitempty"`
	// Body is the JSON body the handler decodes; nil when it decodes none.
	Body *Body `json:"body,omitempty"`
	// Query are the query (or form) parameters it reads, by name.
	Query []Param `json:"query,omitempty"`
	// Path are the path parameters it reads.
	Path []string `json:"path,omitempty"`
	// Output is the index, in the file's types, of the type it encodes as
	// JSON on success; -1 when it answers several types, or something
	// the generator cannot name; absent when it encodes no JSON.
	Output *int `json:"out,omitempty"`
	// Answers are the kinds of answer it writes on success: "json",
	// "text", "html", "redirect", "empty".
	Answers []string `json:"answers,omitempty"`
	// Form reports that it reads a form body (r.PostForm, PostFormValue).
	Form bool `json:"form,omitempty"`
	// Note says why the body's schema is missing, for the report ("the
	// body's type is declared in a function"; which call gen could not
	// follow, and where).
	Note string `json:"note,omitempty"`
	// OutNote says why the output schema is missing.
	OutNote string `json:"outnote,omitempty"`
}

// Body is a decoded body.
type Body struct {
	// Type is the index of the decoded type in the file's types, or -1 for
	// a type the generator cannot name from the generated file.
	Type int `json:"type"`
	// Strict reports that the decoder refuses unknown members
	// (json.Decoder.DisallowUnknownFields).
	Strict bool `json:"strict,omitempty"`
	// Required are the members the handler refuses to go without, each a
	// path of JSON names from the body's root.
	Required [][]string `json:"required,omitempty"`
}

// Param is a query or form parameter.
type Param struct {
	Name string `json:"name"`
	// Type is what the handler parses the value as: "" (a string),
	// "integer", "number", "boolean", or "array" (it reads every value).
	Type string `json:"type,omitempty"`
	// Required reports that the handler refuses a request without it.
	Required bool `json:"required,omitempty"`
	// Doc describes it: its swaggo annotation's description.
	Doc string `json:"doc,omitempty"`
}

// Encode writes f as the generated file holds it: one handler a line, so
// that a diff of two generations shows which handler changed.
func Encode(f *File) string {
	var b strings.Builder
	head, _ := json.Marshal(struct {
		Version int    `json:"v"`
		Package string `json:"package"`
	}{f.Version, f.Package})
	b.Write(head[:len(head)-1])
	b.WriteString(`,"handlers":[`)
	for i := range f.Handlers {
		if i > 0 {
			b.WriteByte(',')
		}
		h, _ := json.Marshal(&f.Handlers[i])
		b.WriteString("\n")
		b.Write(h)
	}
	b.WriteString("\n]")
	if len(f.Routes) > 0 {
		b.WriteString(`,"routes":[`)
		for i := range f.Routes {
			if i > 0 {
				b.WriteByte(',')
			}
			r, _ := json.Marshal(&f.Routes[i])
			b.WriteString("\n")
			b.Write(r)
		}
		b.WriteString("\n]")
	}
	b.WriteString("}")
	return b.String()
}

// Decode reads a file Encode wrote.
func Decode(s string) (*File, error) {
	var f File
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	if f.Version != Version {
		return nil, fmt.Errorf("written in format %d, this version of mcpdoor reads %d", f.Version, Version)
	}
	return &f, nil
}

// FuncName returns the name the runtime gives a function or method of the
// package whose import path is pkgPath (runtime.FuncForPC(pc).Name()): for
// a function "pkg.Name"; for a method "pkg.T.M" or "pkg.(*T).M", with
// "[...]" after a generic receiver's type name. A main package's functions
// are named "main.Name"; pkgPath is then "main".
func FuncName(pkgPath, recv string, pointer, generic bool, name string) string {
	prefix := PathPrefix(pkgPath)
	if recv == "" {
		return prefix + "." + name
	}
	if generic {
		recv += "[...]"
	}
	if pointer {
		return prefix + ".(*" + recv + ")." + name
	}
	return prefix + "." + recv + "." + name
}

// PathPrefix escapes an import path as the linker does in symbol names: a
// byte that is a control character, a space, '%', '"', or not ASCII, and a
// '.' after the last '/', as %xx.
func PathPrefix(path string) string {
	slash := strings.LastIndex(path, "/")
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c <= ' ' || c == '%' || c == '"' || c >= 0x7f || (c == '.' && i > slash) {
			fmt.Fprintf(&b, "%%%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
