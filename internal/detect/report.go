package detect

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/table"
)

// Tools returns the routes that are tools (not catch-alls, reserved or
// skipped routes), by name.
func (rep *Report) Tools() []Route {
	var out []Route
	for _, rt := range rep.Routes {
		if rt.Kind == Tool {
			out = append(out, rt)
		}
	}
	return out
}

// CatchAll returns the router's catch-all dispatcher, or nil.
func (rep *Report) CatchAll() *Route {
	for i := range rep.Routes {
		if rep.Routes[i].Kind == CatchAll {
			return &rep.Routes[i]
		}
	}
	return nil
}

// Route returns the POST route with exactly this pattern, or nil.
func (rep *Report) Route(pattern string) *Route {
	return rep.Lookup(http.MethodPost, pattern)
}

// Lookup returns the route with exactly this method and pattern, or nil.
func (rep *Report) Lookup(method, pattern string) *Route {
	for i := range rep.Routes {
		if rep.Routes[i].Method == method && rep.Routes[i].Pattern == pattern {
			return &rep.Routes[i]
		}
	}
	return nil
}

// WriteTable writes one line per route of the report: name, route, kind,
// verdict and reasons, followed by the router's problems, one a line. No line ends in
// a space, so the table can be compared with a golden file.
func (rep *Report) WriteTable(w io.Writer) error {
	rows := [][]string{{"TOOL", "ROUTE", "KIND", "VERDICT", "REASON"}}
	for _, rt := range rep.Routes {
		verdict := ""
		if rt.Verdict != 0 {
			verdict = rt.Verdict.String()
		}
		rows = append(rows, []string{rt.Name, rt.Method + " " + rt.Pattern, rt.Kind.String(), verdict, strings.Join(rt.Reasons, "; ")})
	}
	if err := table.Write(w, rows); err != nil {
		return err
	}
	for _, p := range rep.Problems {
		if _, err := fmt.Fprintf(w, "%v\n", p); err != nil {
			return err
		}
	}
	return nil
}
