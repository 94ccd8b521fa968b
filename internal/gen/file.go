package gen

import (
	"bytes"
	"fmt"
	"go/format"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/genfacts"
)

// writeFile returns the generated file of package p: an init that hands
// the facts and the types they name to autoexpose.Generated.
func writeFile(p *pkg, facts *genfacts.File, tw *typeWriter) ([]byte, error) {
	reflectName := ""
	if len(tw.exprs) > 0 {
		reflectName = tw.name("reflect", "reflect")
	}
	autoexpose := tw.name(autoexposePath, "autoexpose")
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\n//go:build !%s\n\n", header, buildTag)
	fmt.Fprintf(&b, "package %s\n\n", p.Name)
	b.WriteString("import (\n")
	paths := make([]string, 0, len(tw.imports))
	for path := range tw.imports {
		paths = append(paths, path)
	}
	// The standard library first, then the others, as goimports groups them.
	slices.SortFunc(paths, func(x, y string) int {
		if sx, sy := standard(x), standard(y); sx != sy {
			if sx {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	for i, path := range paths {
		if i > 0 && standard(paths[i-1]) && !standard(path) {
			b.WriteString("\n")
		}
		name := tw.imports[path]
		if name == lastElem(path) {
			fmt.Fprintf(&b, "\t%q\n", path)
		} else {
			fmt.Fprintf(&b, "\t%s %q\n", name, path)
		}
	}
	b.WriteString(")\n\n")
	b.WriteString("// init hands Install what mcpdoor gen read from this package's handlers\n" +
		"// (see the autoexpose package, \"Generated facts\"): when a handler changes,\n" +
		"// rerun go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen; gen -check tells\n" +
		"// when it is due.\n")
	b.WriteString("func init() {\n")
	fmt.Fprintf(&b, "\t%s.Generated(`%s`,\n", autoexpose, rawJSON(genfacts.Encode(facts)))
	for i, e := range tw.exprs {
		fmt.Fprintf(&b, "\t\t%s.TypeFor[%s](), // %d\n", reflectName, e, i)
	}
	b.WriteString("\t)\n}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: gen: the generated file of %s does not parse (a bug of mcpdoor gen; please report it): %v", p.PkgPath, err)
	}
	return out, nil
}

// rawJSON makes JSON fit a raw string literal: a backquote and a byte
// order mark (which the compiler refuses in a file), which only a JSON
// string can hold, are escaped. encoding/json escapes the control
// characters already.
func rawJSON(s string) string {
	return strings.NewReplacer("`", `\u0060`, "\ufeff", `\ufeff`).Replace(s)
}

func lastElem(path string) string {
	return path[strings.LastIndex(path, "/")+1:]
}

// standard reports whether an import path is the standard library's: its
// first element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
