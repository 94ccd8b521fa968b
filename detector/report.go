package detector

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
	for i := range rep.Routes {
		if rep.Routes[i].Pattern == pattern {
			return &rep.Routes[i]
		}
	}
	return nil
}

// WriteTable writes one line per POST route: name, route, kind, verdict and
// reasons, followed by the router's problems, one a line. No line ends in
// a space, so the table can be compared with a golden file.
func (rep *Report) WriteTable(w io.Writer) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tROUTE\tKIND\tVERDICT\tREASON")
	for _, rt := range rep.Routes {
		verdict := "-"
		if rt.Verdict != 0 {
			verdict = rt.Verdict.String()
		}
		name := rt.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t%s\n", name, rt.Method, rt.Pattern, rt.Kind, verdict, strings.Join(rt.Reasons, "; "))
	}
	tw.Flush()
	for _, p := range rep.Problems {
		fmt.Fprintf(&buf, "%v\n", p)
	}
	var out strings.Builder
	for line := range strings.Lines(buf.String()) {
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}
