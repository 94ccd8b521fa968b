package bodies

import (
	"bytes"
	"io"
	"net/http"
)

// A request's Content-Length is what its client declares, not what it
// sends: a buffer made to the declared size before any of it has arrived
// lets a client that declares megabytes, sends a few bytes and stalls pin
// those megabytes for as long as its connection lasts. So a body that comes
// over a connection is read into a buffer that starts small and grows with
// what arrives, doubling up to the declared size: it holds at most about
// twice what its client has sent, and a body that does come whole is
// copied a few times at most, for sizes that double. A body already in
// memory (the request of a call the door dispatches) is read in one go.

// firstChunk is the room made for a body before any of it has arrived,
// when it declares more: as much as net/http's own read buffer holds, so
// that a small call's body is read in one allocation of its own size.
const firstChunk = 4 << 10

// bodyBuffer returns an empty buffer for body, which declares n bytes: room
// for n+1 (the last byte for the read that finds the end) when that is
// small or body is already in memory (its reader knows its length), and
// firstChunk otherwise.
func bodyBuffer(body io.Reader, n int64) []byte {
	if _, held := body.(interface{ Len() int }); held || n < firstChunk {
		return make([]byte, 0, n+1)
	}
	return make([]byte, 0, firstChunk)
}

// growBody returns b, which is full, with room for more of a body that
// declares n bytes: twice its capacity, up to n+1, and as append grows it
// past that (a body longer than it declares).
func growBody(b []byte, n int64) []byte {
	if c := int64(cap(b)); c < n+1 {
		grown := make([]byte, len(b), min(2*c, n+1))
		copy(grown, b)
		return grown
	}
	return append(b, 0)[:len(b)]
}

// ReadDeclared returns the fast path's request body, Content-Length bytes:
// the one the endpoint has read (Held), or else read here. When it cannot,
// or the body is longer, it puts back what it read in front of the rest,
// for the go-sdk to read as it would have.
func ReadDeclared(r *http.Request) ([]byte, bool) {
	if b, ok := Bytes(r.Body); ok { // read whole by the endpoint
		return b, int64(len(b)) == r.ContentLength
	}
	n := r.ContentLength
	body := bodyBuffer(r.Body, n)
	for {
		if len(body) == cap(body) {
			if int64(len(body)) > n { // longer than it declares
				break
			}
			body = growBody(body, n)
		}
		k, err := r.Body.Read(body[len(body):cap(body)])
		body = body[:len(body)+k]
		if err == io.EOF && int64(len(body)) == n {
			return body, true
		}
		if err != nil {
			break
		}
	}
	Unread(r, body)
	return nil, false
}

// ReadAll reads a request's body to its end as io.ReadAll does, within
// limit (over it, the error is an *http.MaxBytesError), into a buffer
// sized by its Content-Length when that is known and within limit.
func ReadAll(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	n := r.ContentLength
	if n <= 0 || n > limit {
		return io.ReadAll(body)
	}
	b := bodyBuffer(r.Body, n)
	for {
		if len(b) == cap(b) {
			b = growBody(b, n)
		}
		k, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Unread puts what was read of r's body, read, back in front of the rest.
func Unread(r *http.Request, read []byte) {
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(read), r.Body), r.Body}
}
