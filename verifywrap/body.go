package verifywrap

import (
	"errors"
	"io"
)

// errShort is readBody's error for a body that ends before the length it
// declared.
var errShort = errors.New("mcpdoor: request body shorter than its Content-Length")

// Sizes of the parts readBody reads a body into before it knows better.
const (
	firstPart = 32 << 10
	lastPart  = 4 << 20
)

// readBody reads r, a request body that declared its length (-1: did not),
// to its end, into one slice, holding about the body's size and no more.
//
// The buffer grows with the bytes received, never ahead of them by more
// than a factor of four: the body is read into parts until a quarter of
// its declared length has come, and only then into one buffer of that
// length, the parts copied in. So a body that declares its length costs
// 1.25 times its size in allocations, and a client that declares a
// gigabyte and stalls holds at most four times what it sent. A body that
// did not declare its length is read into parts and joined at its end,
// which costs twice its size.
func readBody(r io.Reader, declared int64) ([]byte, error) {
	var parts [][]byte
	n := 0
	for size := firstPart; ; size = min(2*size, lastPart) {
		if declared >= 0 {
			if int64(n) >= declared/4 {
				return readRest(r, parts, n, declared)
			}
			size = min(size, max(int(declared/4)-n, 1))
		}
		p := make([]byte, size)
		m, err := io.ReadFull(r, p)
		n += m
		parts = append(parts, p[:m])
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if declared >= 0 {
				return nil, errShort
			}
			return join(parts, n), nil
		case err != nil:
			return nil, err
		}
	}
}

// readRest reads the rest of a body that declared its length into one
// buffer of that length, after the parts read so far (n bytes).
func readRest(r io.Reader, parts [][]byte, n int, declared int64) ([]byte, error) {
	body := make([]byte, declared)
	at := 0
	for _, p := range parts {
		at += copy(body[at:], p)
	}
	if _, err := io.ReadFull(r, body[n:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, errShort
		}
		return nil, err
	}
	// The body ends here, as declared; net/http sees to it, but another
	// reader may run on, and the bytes it has left are the body's too.
	var one [1]byte
	switch m, err := io.ReadFull(r, one[:]); {
	case m == 1:
		rest, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		return append(append(body, one[0]), rest...), nil
	case err != io.EOF:
		return nil, err
	}
	return body, nil
}

// join returns the parts, n bytes in all, as one slice.
func join(parts [][]byte, n int) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	body := make([]byte, 0, n)
	for _, p := range parts {
		body = append(body, p...)
	}
	return body
}
