// Package bodies reads the request bodies a server holds in memory whole
// (an MCP request, a /seed_session row, a /verify trajectory): into memory
// that grows with the bytes received, never ahead of them by more than
// twice, within one budget that bounds what all the bodies being read or
// held take at once, and within a deadline.
//
// A request's Content-Length is what its client declares, not what it
// sends. A buffer made to the declared length before the bytes have come
// lets a client that declares a gigabyte, sends a few bytes and stalls pin
// the gigabyte; a buffer that grows with the bytes still lets a few clients
// that send a little more each, slowly, hold as much as they like between
// them. So a body is read into parts that double, from 4 KiB, while less
// than half of its declared length has come, and then into one buffer of
// that length, the parts copied in: it holds at most twice what its client
// has sent (and 4 KiB), and costs 1.5 times its length in allocations. A
// body that declares no length is read into parts and joined at its end.
// Every part and buffer is taken from the budget before it is made, and
// given back once the request is served; a body that would take more than
// the budget has left is refused (ErrBusy), before any of it is read when
// its declared length says so. And a body must come whole within the
// policy's timeout (ErrTimeout), so that none holds memory, or a
// connection, for longer.
package bodies

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// Sizes of the parts a body is read into before it has come far enough to
// be given its own buffer.
const (
	firstPart = 4 << 10
	lastPart  = 4 << 20
)

// Peak returns the most memory Read takes from a budget for a body of n
// bytes that declares its length: its buffer, and the parts read before
// it, while they are copied in.
func Peak(n int64) int64 { return n + n/2 + firstPart }

// Errors of Read, besides the *http.MaxBytesError of a body over its limit
// and the error of the connection.
var (
	// ErrBusy: the budget has no room for the body now.
	ErrBusy = errors.New("mcpdoor: the request bodies being served hold all the memory their budget allows")
	// ErrTimeout: the body did not come whole within the policy's timeout.
	ErrTimeout = errors.New("mcpdoor: the request body did not come whole in time")
	// ErrShort: the body ended before the length it declared.
	ErrShort = errors.New("mcpdoor: request body shorter than its Content-Length")
)

// A Budget is the memory the request bodies of one server may hold at
// once. It is safe for concurrent use.
type Budget struct {
	max  int64
	used atomic.Int64
}

// NewBudget returns a budget of max bytes.
func NewBudget(max int64) *Budget { return &Budget{max: max} }

// Max returns the budget's size.
func (b *Budget) Max() int64 { return b.max }

// Used returns what the bodies being read or held take from it now.
func (b *Budget) Used() int64 { return b.used.Load() }

// fits reports whether n bytes fit in what the budget has left now.
func (b *Budget) fits(n int64) bool { return b == nil || b.used.Load()+n <= b.max }

// take takes n bytes from the budget, if they fit.
func (b *Budget) take(n int64) bool {
	if b == nil {
		return true
	}
	for {
		used := b.used.Load()
		if used+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// give gives n bytes back.
func (b *Budget) give(n int64) {
	if b != nil && n != 0 {
		b.used.Add(-n)
	}
}

// A Policy is how a server reads request bodies: within its budget, under
// the name of the setting that sizes it, and within a timeout (0: none)
// under the name of its setting. A nil *Policy reads with neither.
type Policy struct {
	Budget      *Budget
	BudgetName  string // mcp.max_body_memory
	Timeout     time.Duration
	TimeoutName string // mcp.body_timeout
}

type policyKey struct{}

// WithPolicy returns ctx carrying p, for a reader that has no other way to
// learn its server's policy (package verifywrap's, under the door).
func WithPolicy(ctx context.Context, p *Policy) context.Context {
	return context.WithValue(ctx, policyKey{}, p)
}

// PolicyFrom returns the policy ctx carries, or nil.
func PolicyFrom(ctx context.Context) *Policy {
	p, _ := ctx.Value(policyKey{}).(*Policy)
	return p
}

// BusyText is what a request refused with ErrBusy is told.
func (p *Policy) BusyText() string {
	return "mcpdoor: the server holds as much of request bodies as " + p.BudgetName + " (" +
		strconv.FormatInt(p.Budget.Max(), 10) + " bytes) allows; retry shortly"
}

// TimeoutText is what a request whose body was cut with ErrTimeout is told.
func (p *Policy) TimeoutText() string {
	return "mcpdoor: the request body did not come whole within " +
		strconv.FormatFloat(p.Timeout.Seconds(), 'f', -1, 64) + "s (" + p.TimeoutName + ")"
}

// RetryAfter is the Retry-After, in seconds, of a request refused with
// ErrBusy: the budget frees as the bodies being served are.
const RetryAfter = "1"

// Refuse answers a request whose body Read failed to read with ErrBusy
// (503, Retry-After) or ErrTimeout (408), in plain text, and reports
// whether it did.
func Refuse(w http.ResponseWriter, err error, p *Policy) bool {
	switch {
	case errors.Is(err, ErrBusy):
		w.Header().Set("Retry-After", RetryAfter)
		http.Error(w, p.BusyText(), http.StatusServiceUnavailable)
	case errors.Is(err, ErrTimeout):
		http.Error(w, p.TimeoutText(), http.StatusRequestTimeout)
	default:
		return false
	}
	return true
}

// held is a body read whole, as Read hands it on.
type held struct {
	bytes.Reader
	b []byte
}

func (*held) Close() error { return nil }

// Held returns a request body that reads b, which Read then hands out
// without reading it again.
func Held(b []byte) io.ReadCloser {
	h := &held{b: b}
	h.Reset(b)
	return h
}

// Bytes returns what is left to read of body, without reading it, when
// body is one that Held made; nil and false for any other.
func Bytes(body io.Reader) ([]byte, bool) {
	h, ok := body.(*held)
	if !ok {
		return nil, false
	}
	return h.b[len(h.b)-h.Len():], true
}

// Read reads r's body to its end, within limit (over it, the error is an
// *http.MaxBytesError) and under p. It returns the body and the func that
// gives its memory back to the budget, to be called once the body is no
// longer used; release is never nil. A body that Held made is handed out
// as it is. On an error, body holds the first bytes that were read (for a
// JSON-RPC request's id), at most one part.
func Read(w http.ResponseWriter, r *http.Request, limit int64, p *Policy) (body []byte, release func(), err error) {
	body, t, err := ReadTaken(w, r, limit, p)
	if t.n == 0 {
		return body, nothing, err
	}
	return body, t.Release, err
}

// Taken is what a body ReadTaken read holds of its budget.
type Taken struct {
	b *Budget
	n int64
}

// Release gives it back, once the body is no longer used.
func (t Taken) Release() { t.b.give(t.n) }

// ReadTaken is Read, but for the release, which it returns as a Taken: it
// costs no allocation, where Read's func costs one.
func ReadTaken(w http.ResponseWriter, r *http.Request, limit int64, p *Policy) (body []byte, taken Taken, err error) {
	if b, ok := Bytes(r.Body); ok {
		if int64(len(b)) > limit {
			return b[:min(int64(len(b)), firstPart)], Taken{}, &http.MaxBytesError{Limit: limit}
		}
		return b, Taken{}, nil
	}
	var budget *Budget
	deadlined := false
	if p != nil {
		budget, deadlined = p.Budget, Deadline(w, r, p)
	}
	rd := reader{r: r.Body, budget: budget, limit: limit}
	body, err = rd.read(min(r.ContentLength, limit))
	if err != nil {
		// The deadline stays: net/http reads what is left of a small body
		// before it writes the answer, and must give up on it too.
		rd.release()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = ErrTimeout
		}
		return rd.first, Taken{}, err
	}
	if deadlined {
		http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	return body, Taken{rd.budget, rd.taken}, nil
}

// nothing is the release of a body that holds nothing of a budget.
func nothing() {}

// Deadline sets a read deadline on r's connection, the policy's timeout
// from now, and reports whether it did; Read lifts it once the body has
// come whole, since net/http reads on in the background while the handler
// runs, to learn that the client went away, and would take the deadline
// for that. A request refused before its body was read keeps it, so that
// net/http, which reads what is left of a small body before it answers,
// gives up on it in time. A server whose own ReadTimeout is shorter keeps
// that. Where the writer cannot set a deadline (a recorder, a request
// dispatched in process), or the policy has no timeout, there is none.
func Deadline(w http.ResponseWriter, r *http.Request, p *Policy) bool {
	if p == nil || p.Timeout <= 0 {
		return false
	}
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 && srv.ReadTimeout <= p.Timeout {
		return false
	}
	return http.NewResponseController(w).SetReadDeadline(time.Now().Add(p.Timeout)) == nil
}

// A reader reads one body, up to limit bytes, taking what it makes from
// budget.
type reader struct {
	r      io.Reader
	budget *Budget
	limit  int64
	got    int64  // bytes read
	taken  int64  // what it holds of the budget
	first  []byte // the first part read
}

// fill reads into p, as io.ReadFull does, and counts what it read.
func (rd *reader) fill(p []byte) (int, error) {
	m, err := io.ReadFull(rd.r, p)
	rd.got += int64(m)
	return m, err
}

// over is the error of a body past the limit.
func (rd *reader) over() error { return &http.MaxBytesError{Limit: rd.limit} }

// alloc makes a buffer of n bytes, taken from the budget.
func (rd *reader) alloc(n int) ([]byte, error) {
	if !rd.budget.take(int64(n)) {
		return nil, ErrBusy
	}
	rd.taken += int64(n)
	return make([]byte, n), nil
}

// free gives back n bytes of what was taken.
func (rd *reader) free(n int) {
	rd.budget.give(int64(n))
	rd.taken -= int64(n)
}

// release gives back all that was taken.
func (rd *reader) release() {
	rd.budget.give(rd.taken)
	rd.taken = 0
}

// read reads the body, which declares n bytes (-1: did not).
func (rd *reader) read(n int64) ([]byte, error) {
	if n >= 0 && !rd.budget.fits(Peak(n)) {
		return nil, ErrBusy // refused before any of it is read
	}
	if n >= 0 && n <= firstPart {
		return rd.rest(nil, 0, n)
	}
	var parts [][]byte
	got := 0
	for size := firstPart; ; size = min(2*size, lastPart) {
		if n >= 0 {
			if int64(got) >= n/2 {
				return rd.rest(parts, got, n)
			}
			size = min(size, int(n/2)-got)
		} else {
			size = int(min(int64(size), rd.limit+1-rd.got)) // the byte past the limit tells
		}
		p, err := rd.alloc(size)
		if err != nil {
			return nil, err
		}
		m, err := rd.fill(p)
		got += m
		parts = append(parts, p[:m])
		if rd.first == nil {
			rd.first = p[:m]
		}
		switch {
		case rd.got > rd.limit:
			return nil, rd.over()
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			if n >= 0 {
				return nil, ErrShort
			}
			return rd.join(parts, got)
		case err != nil:
			return nil, err
		}
	}
}

// rest reads the rest of a body that declares n bytes into one buffer of
// that length, after the parts read so far (got bytes), and gives the
// parts back.
func (rd *reader) rest(parts [][]byte, got int, n int64) ([]byte, error) {
	body, err := rd.alloc(int(n))
	if err != nil {
		return nil, err
	}
	at := 0
	for _, p := range parts {
		at += copy(body[at:], p)
		rd.free(cap(p))
	}
	if m, err := rd.fill(body[got:]); err != nil {
		if rd.first == nil {
			rd.first = body[:min(got+m, firstPart)]
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, ErrShort
		}
		return nil, err
	}
	// The body ends here, as declared; net/http sees to it, but another
	// reader may run on, and the bytes it has left are the body's too.
	var one [1]byte
	if m, err := rd.fill(one[:]); m == 0 {
		if err != io.EOF {
			return nil, err
		}
		return body, nil
	}
	if rd.got > rd.limit {
		return nil, rd.over()
	}
	more, err := rd.readOn(one[0])
	if err != nil {
		return nil, err
	}
	return rd.join(append([][]byte{body}, more...), len(body)+total(more))
}

// readOn reads the rest of a body that is longer than it declared, from
// its byte b on, into parts.
func (rd *reader) readOn(b byte) ([][]byte, error) {
	var parts [][]byte
	for size := firstPart; ; size = min(2*size, lastPart) {
		p, err := rd.alloc(int(min(int64(size), rd.limit+2-rd.got))) // b, and the byte past the limit
		if err != nil {
			return nil, err
		}
		at := 0
		if parts == nil {
			p[0], at = b, 1
		}
		m, err := rd.fill(p[at:])
		parts = append(parts, p[:at+m])
		switch {
		case rd.got > rd.limit:
			return nil, rd.over()
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return parts, nil
		case err != nil:
			return nil, err
		}
	}
}

// join returns the parts, n bytes in all, as one slice, and gives back
// all but it.
func (rd *reader) join(parts [][]byte, n int) ([]byte, error) {
	if len(parts) == 1 {
		return parts[0], nil
	}
	body, err := rd.alloc(n)
	if err != nil {
		return nil, err
	}
	body = body[:0]
	for _, p := range parts {
		body = append(body, p...)
		rd.free(cap(p))
	}
	return body, nil
}

func total(parts [][]byte) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}
