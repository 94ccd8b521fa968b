package verifywrap

import (
	"io"
	"math"
)

// A spliced reads body with edits applied — what splice would return —
// as a stream from body itself, so that the edited copy is never made.
// The edits are sorted and do not overlap.
type spliced struct {
	body  []byte
	edits []edit
	pos   int    // in body: what is read next, after lit
	lit   []byte // what is left of the edit being read
}

func newSpliced(body []byte, edits []edit) *spliced {
	return &spliced{body: body, edits: edits}
}

// Len is the length of the edited body.
func (s *spliced) Len() int {
	n := len(s.body)
	for _, e := range s.edits {
		n += len(e.lit) - (e.at.end - e.at.start)
	}
	return n
}

// next returns the next run of bytes, and moves past it; none at the end.
func (s *spliced) next(max int) []byte {
	if len(s.lit) == 0 && len(s.edits) > 0 && s.pos == s.edits[0].at.start {
		s.lit, s.pos = s.edits[0].lit, s.edits[0].at.end
		s.edits = s.edits[1:]
	}
	var run []byte
	switch {
	case len(s.lit) > 0:
		run = s.lit[:min(max, len(s.lit))]
		s.lit = s.lit[len(run):]
		return run
	case len(s.edits) > 0:
		run = s.body[s.pos:s.edits[0].at.start]
	default:
		run = s.body[s.pos:]
	}
	run = run[:min(max, len(run))]
	s.pos += len(run)
	return run
}

func (s *spliced) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		run := s.next(len(p) - n)
		if len(run) == 0 {
			break
		}
		n += copy(p[n:], run)
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo writes the rest of the edited body to w, run by run.
func (s *spliced) WriteTo(w io.Writer) (int64, error) {
	var n int64
	for {
		run := s.next(math.MaxInt)
		if len(run) == 0 {
			return n, nil
		}
		m, err := w.Write(run)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
}
