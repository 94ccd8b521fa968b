package edge

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/wire"
)

func TestLeadingID(t *testing.T) {
	big := strings.Repeat("x", 20<<10)
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":"` + big, `1`},
		{`{"id":"abc-1","jsonrpc":"2.0"`, `"abc-1"`},
		{`{"jsonrpc":"2.0","id":-3.5e2,`, `-3.5e2`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"a":"` + big + `"},"id":1}`, `null`}, // past the first 16 KiB
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, `null`},
		{`{"jsonrpc":"2.0","id":null}`, `null`},
		{`{"jsonrpc":"2.0","id":true}`, `null`},
		{`[{"jsonrpc":"2.0","id":1}]`, `null`}, // a batch
		{`{"jsonrpc":"2.0","i`, `null`},
		{`not json`, `null`},
		{``, `null`},
	} {
		w := httptest.NewRecorder()
		wire.WriteError(w, http.StatusRequestEntityTooLarge, leadingID([]byte(tc.body)), -32600, "too large")
		if want := `{"jsonrpc":"2.0","id":` + tc.want + `,"error":{"code":-32600,"message":"too large"}}`; w.Body.String() != want {
			t.Errorf("answer to %.40q: %s, want %s", tc.body, w.Body, want)
		}
	}
}
