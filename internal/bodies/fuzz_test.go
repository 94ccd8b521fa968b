package bodies

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"
)

// chunks reads data in pieces whose sizes cycle through sizes (each at
// least one byte), as a client's writes arrive.
type chunks struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := (1 + int(c.sizes[c.i%len(c.sizes)])) * 61
	c.i++
	n = copy(p[:min(len(p), n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// FuzzRead: whatever a client sends, and whatever it declares, Read gives
// the body it sent when that is within the limit and as long as declared;
// a body over the limit is an *http.MaxBytesError, one shorter than it
// declared ErrShort; and the budget is whole again once the body is
// released.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), int32(-1), uint16(100), []byte{0})
	f.Add(bytes.Repeat([]byte("x"), 3*firstPart+1), int32(3*firstPart+1), uint16(4*firstPart), []byte{1, 40, 3})
	f.Add(bytes.Repeat([]byte("y"), firstPart), int32(firstPart+10), uint16(2*firstPart), []byte{2})
	f.Add([]byte("abc"), int32(2), uint16(2), []byte{0, 0})
	f.Fuzz(func(t *testing.T, data []byte, declared int32, limit uint16, sizes []byte) {
		if len(sizes) == 0 {
			sizes = []byte{0}
		}
		// What Read hands the reader: a caller refuses a body that declares
		// more than the limit before it reads any of it.
		n := min(max(int64(declared), -1), int64(limit))
		b := NewBudget(1 << 30)
		rd := reader{r: &chunks{data: data, sizes: sizes}, budget: b, limit: int64(limit)}
		got, err := rd.read(n)
		var mbe *http.MaxBytesError
		switch {
		case n >= 0 && int64(len(data)) < n:
			if err != ErrShort {
				t.Fatalf("%d bytes, declared %d, limit %d: %v, want ErrShort", len(data), n, limit, err)
			}
		case len(data) > int(limit):
			if !errors.As(err, &mbe) {
				t.Fatalf("%d bytes, declared %d, limit %d: %v, want an *http.MaxBytesError", len(data), n, limit, err)
			}
		case err != nil || !bytes.Equal(got, data):
			t.Fatalf("%d bytes, declared %d, limit %d: %d bytes, %v", len(data), n, limit, len(got), err)
		}
		if rd.got > int64(limit)+2 {
			t.Fatalf("%d bytes, limit %d: read %d", len(data), limit, rd.got)
		}
		rd.release()
		if b.Used() != 0 {
			t.Fatalf("%d bytes of the budget not given back", b.Used())
		}
	})
}
