// Package token mints and verifies what mcpdoor hands to clients: the
// per-rollout session token {sid, tools, rid} carried in the
// X-NeMo-Gym-Session-Token header, for harness code that makes or reads
// one; and the key ring that tokens and session cookies are signed with.
//
// Both come from one Keys value, so one secret (or one list of secrets, for
// rotation) owns everything the server signs:
//
//	keys, err := token.NewKeys([]byte(os.Getenv("WEATHER_MCP_SECRET")))
//	if err != nil {
//		log.Fatal(err)
//	}
//	codec := token.NewCodec("weather", keys, 0) // the server's name binds its tokens
//	tok, err := codec.Mint(token.Payload{SID: "s1", Tools: []string{"get_weather"}})
//
// Values are signed with HMAC-SHA256 (gorilla/securecookie), not encrypted:
// a token's payload is readable by whoever holds it, and unforgeable.
package token
