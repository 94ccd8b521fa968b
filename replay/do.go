package replay

import (
	"net/http"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// A Response is what the handler answered.
type Response struct {
	// Status is the status the handler wrote (200 when it wrote a body
	// without one, or nothing).
	Status int
	// Header is the header as the handler had set it when it wrote the
	// status (explicitly or by its first Write), or when it returned if it
	// wrote nothing: what an HTTP client would have received. A missing
	// Content-Type stays missing (net/http would sniff one).
	Header http.Header
	// Body is the body, up to the limit.
	Body []byte
	// Truncated reports that the handler wrote more than the limit: Body
	// holds the first bytes only.
	Truncated bool
	// Panic holds the value the handler panicked with; the Response is then
	// a 500 with the body "Internal Server Error".
	Panic any
}

// Do serves r through h in process, as the server would, and returns what
// h answered, capturing at most max bytes of its body (max ≤ 0: 4 MiB),
// recovering a panic. h sees r's context, cancellation included, minus a
// chi route context r may carry (a router would route r as that context
// says, not by r's path). Informational 1xx statuses, and changes to the
// header after the status is written, are not captured, as they would not
// reach an HTTP client either.
func Do(h http.Handler, r *http.Request, max int64) *Response {
	if max < 0 {
		max = 0 // the default, as for 0
	}
	resp := dispatch.Serve(h, r, max)
	return &Response{Status: resp.Status, Header: resp.Header, Body: resp.Body, Truncated: resp.Truncated, Panic: resp.Panic}
}
