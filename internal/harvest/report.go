package harvest

import (
	"strings"

	"github.com/mcpdoor/mcpdoor/detector"
)

// CompareRows orders the report: tools by name, then the other routes by
// pattern.
func CompareRows(a, b detector.Row) int {
	switch {
	case (a.Tool == "") != (b.Tool == ""):
		if a.Tool != "" {
			return -1
		}
		return 1
	case a.Tool != b.Tool:
		return strings.Compare(a.Tool, b.Tool)
	}
	return strings.Compare(a.Route, b.Route)
}
