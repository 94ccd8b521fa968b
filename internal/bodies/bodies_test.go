package bodies

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// trickle reads data at most 3 KiB at a time, as a socket does, and tells
// how much of it has been read.
type trickle struct{ data []byte }

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 3<<10)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// pattern is n bytes that are not all alike.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// TestRead: a body is read whole, declared or not, across the sizes of the
// parts it is read into; one shorter than it declared is ErrShort, and
// every byte taken from the budget is given back, at once for a failure
// and by release otherwise.
func TestRead(t *testing.T) {
	for _, n := range []int{0, 1, 3, firstPart - 1, firstPart, firstPart + 1, 4 * firstPart, 3*lastPart + 7} {
		body := pattern(n)
		for _, declared := range []int64{int64(n), -1} {
			b := NewBudget(1 << 40)
			rd := &reader{r: &trickle{data: body}, budget: b, limit: 1 << 40}
			got, err := rd.read(declared)
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("%d bytes, declared %d: %d bytes, %v", n, declared, len(got), err)
			}
			if rd.taken != b.Used() || rd.taken < int64(n) {
				t.Errorf("%d bytes, declared %d: %d taken, %d used of the budget", n, declared, rd.taken, b.Used())
			}
			rd.release()
			if b.Used() != 0 {
				t.Errorf("%d bytes, declared %d: %d bytes of the budget not given back", n, declared, b.Used())
			}
		}
		if n > 0 {
			b := NewBudget(1 << 40)
			rd := &reader{r: &trickle{data: body[:n-1]}, budget: b, limit: 1 << 40}
			if _, err := rd.read(int64(n)); err != ErrShort {
				t.Errorf("%d bytes of %d declared: %v, want ErrShort", n-1, n, err)
			}
			rd.release()
			if b.Used() != 0 {
				t.Errorf("%d bytes of %d declared: %d bytes of the budget not given back", n-1, n, b.Used())
			}
		}
	}
}

// TestReadLonger: a reader that runs on past the declared length (not
// net/http's) gives its bytes too.
func TestReadLonger(t *testing.T) {
	body := pattern(3*firstPart + 5)
	rd := &reader{r: &trickle{data: body}, limit: 1 << 40}
	if got, err := rd.read(int64(firstPart)); err != nil || !bytes.Equal(got, body) {
		t.Errorf("%d bytes declared %d: %d bytes, %v", len(body), firstPart, len(got), err)
	}
}

// stalls reads data, then blocks for good: it calls stalled, which the
// test uses to look at what the reader holds.
type stalls struct {
	data    []byte
	stalled func()
}

func (s *stalls) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		s.stalled()
		return 0, errors.New("stalled")
	}
	n := copy(p, s.data)
	s.data = s.data[n:]
	return n, nil
}

// TestHeldPerReceived: however far a body that declares 64 MiB has come
// when its client stalls, what its reader holds is at most twice what
// came, and 4 KiB.
func TestHeldPerReceived(t *testing.T) {
	const declared = 64 << 20
	for _, sent := range []int{0, 6, firstPart, firstPart + 1, 100 << 10, 5 << 20, declared/2 - 1, declared / 2, declared/2 + 1, declared - 1} {
		b := NewBudget(1 << 40)
		var held int64
		rd := &reader{budget: b, limit: 1 << 40}
		rd.r = &stalls{data: make([]byte, sent), stalled: func() { held = b.Used() }}
		rd.read(declared)
		if limit := int64(2*sent + firstPart); held > limit {
			t.Errorf("%d bytes of %d: %d held, %.2f times what came; want at most %d", sent, declared, held, float64(held)/float64(max(sent, 1)), limit)
		}
	}
}

// TestBudget: a body that may not fit in what the budget has left is
// refused before any of it is read; one that grows past it, mid-way.
// Either way the budget is whole again.
func TestBudget(t *testing.T) {
	b := NewBudget(1 << 20)
	src := &trickle{data: pattern(1 << 20)}
	rd := &reader{r: src, budget: b, limit: 1 << 40}
	if _, err := rd.read(1 << 20); err != ErrBusy || len(src.data) != 1<<20 {
		t.Errorf("a body of 1 MiB on a budget of 1 MiB: %v, %d bytes read; want ErrBusy, none read", err, 1<<20-len(src.data))
	}
	rd = &reader{r: &trickle{data: pattern(2 << 20)}, budget: b, limit: 1 << 40}
	if _, err := rd.read(-1); err != ErrBusy {
		t.Errorf("a chunked body of 2 MiB on a budget of 1 MiB: %v, want ErrBusy", err)
	}
	rd.release()
	if b.Used() != 0 {
		t.Errorf("%d bytes of the budget not given back", b.Used())
	}
	rd = &reader{r: &trickle{data: pattern(600 << 10)}, budget: b, limit: 1 << 40}
	if got, err := rd.read(600 << 10); err != nil || len(got) != 600<<10 {
		t.Errorf("a body of 600 KiB on a budget of 1 MiB: %d bytes, %v", len(got), err)
	}
}

// TestReadHeld: Read hands on a body that Held made as it is, within the
// limit, and over it says so.
func TestReadHeld(t *testing.T) {
	body := []byte(`{"a":1}`)
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body = Held(body)
	got, release, err := Read(httptest.NewRecorder(), r, 100, &Policy{Budget: NewBudget(1)})
	release()
	if err != nil || &got[0] != &body[0] {
		t.Errorf("a held body: %q, %v; want the same bytes", got, err)
	}
	var mbe *http.MaxBytesError
	if _, _, err := Read(httptest.NewRecorder(), r, 3, nil); !errors.As(err, &mbe) {
		t.Errorf("a held body over the limit: %v, want an *http.MaxBytesError", err)
	}
	if rest, ok := Bytes(r.Body); !ok || string(rest) != string(body) {
		t.Errorf("Bytes of a held body: %q, %v", rest, ok)
	}
	io.ReadFull(r.Body, make([]byte, 2))
	if rest, _ := Bytes(r.Body); string(rest) != `a":1}` {
		t.Errorf("Bytes of a held body read 2 bytes into: %q", rest)
	}
	if _, ok := Bytes(strings.NewReader("x")); ok {
		t.Error("Bytes of a body Held did not make: ok")
	}
}

// TestReadLimit: a body of up to limit bytes is read, declared or not; one
// byte more is an *http.MaxBytesError, after at most limit+2 bytes read.
func TestReadLimit(t *testing.T) {
	const limit = 3*firstPart + 5
	for _, n := range []int{limit, limit + 1, 10 * limit} {
		for _, declared := range []int64{-1, limit, int64(n)} {
			src := &trickle{data: pattern(n)}
			rd := &reader{r: src, limit: limit}
			got, err := rd.read(min(declared, limit))
			var mbe *http.MaxBytesError
			switch {
			case n <= limit && declared <= limit && (err != nil || len(got) != n):
				t.Errorf("%d bytes, declared %d, limit %d: %d bytes, %v", n, declared, limit, len(got), err)
			case n > limit && !errors.As(err, &mbe):
				t.Errorf("%d bytes, declared %d, limit %d: %d bytes, %v; want an *http.MaxBytesError", n, declared, limit, len(got), err)
			case rd.got > limit+2:
				t.Errorf("%d bytes, declared %d, limit %d: read %d", n, declared, limit, rd.got)
			}
		}
	}
}
