// Package token signs what mcpdoor hands to clients: the per-rollout session
// token {sid, tools, rid} carried in the X-NeMo-Gym-Session-Token header,
// and the key ring that the session cookie is signed with.
//
// Both come from one Keys value, so one secret (or one list of secrets, for
// rotation) owns everything the server signs:
//
//	keys, err := token.NewKeys([]byte(os.Getenv("WEATHER_MCP_SECRET")))
//	if err != nil {
//		log.Fatal(err)
//	}
//	codecs := keys.Codecs("session", 0)
//
// Values are signed with HMAC-SHA256 (gorilla/securecookie), not encrypted:
// a token's payload is readable by whoever holds it, and unforgeable.
package token
