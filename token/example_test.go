package token_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/mcpdoor/mcpdoor/token"
)

// A harness mints the token of a rollout, and reads one back. A token is
// bound to its server's name: another server refuses it, even under the
// same secret.
func ExampleNewCodec() {
	keys, err := token.NewKeys([]byte("an example secret of at least 32 bytes"))
	if err != nil {
		log.Fatal(err)
	}
	codec := token.NewCodec("weather", keys, 0) // the server's name binds its tokens
	tok, err := codec.Mint(token.Payload{SID: "s1", Tools: []string{"get_weather"}})
	if err != nil {
		log.Fatal(err)
	}

	p, err := codec.Verify(tok)
	fmt.Println(p.SID, p.Tools, p.Allows("get_weather"), p.Allows("delete_all"), err)

	_, err = token.NewCodec("store", keys, 0).Verify(tok)
	fmt.Println(errors.Is(err, token.ErrInvalid))
	// Output:
	// s1 [get_weather] true false <nil>
	// true
}
