package gen_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Decode reads the request's body into dst by its Content-Type.
//
//mcpdoor:decoder dst
func Decode(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errors.New("unsupported content type " + ct)
	}
	return json.NewDecoder(r.Body).Decode(dst)
}

// A decoder mcpdoor gen cannot read into is named in its doc comment with a
// //mcpdoor:decoder line: gen then takes the type of the argument it names
// as the body of every handler that calls it.
func Example_decoderDirective() {
	r, _ := http.NewRequest(http.MethodPost, "/notes", strings.NewReader(`{"text":"hi"}`))
	r.Header.Set("Content-Type", "application/json")
	var in struct {
		Text string `json:"text"`
	}
	fmt.Println(Decode(r, &in), in.Text)
	// Output: <nil> hi
}
