// Package table writes the aligned text tables of mcpdoor's reports.
package table

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"
)

// Write writes rows as columns separated by at least two spaces. An empty
// cell prints as "-", except in the last column. No line ends in a space, so
// a table can be compared with a golden file.
func Write(w io.Writer, rows [][]string) error {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, cell := range row {
			if cell == "" && i < len(row)-1 {
				cell = "-"
			}
			cells[i] = cell
		}
		io.WriteString(tw, strings.Join(cells, "\t")+"\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var out strings.Builder
	for line := range strings.Lines(buf.String()) {
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}
