// Package sessionkey owns the readable session key: the session id that a
// session token, a session cookie and a /seed_session response carry in
// plain, so that a load balancer can route every request of a session to
// one replica without decoding anything of mcpdoor's.
//
// A token's and a cookie's wire form is "<sid>.<signed>": the id, a dot,
// then the signed value, which carries the id again. The plain id is a
// routing hint only: Split gives it, and the verifier of the signed part
// must check that it is the signed one (Matches).
package sessionkey

import (
	"errors"
	"fmt"
	"strings"
)

// Header is the response header of /seed_session that names the session
// the rollout runs in, for a proxy's stick table.
const Header = "Mcpdoor-Session"

// MaxLen is the longest session id: longer ids would not fit a proxy's
// stick-table key of a sensible size. mcpdoor's own ids have 26 characters.
const MaxLen = 64

// Check reports whether id can stand in plain before a signed value: 1 to
// MaxLen characters of A-Z, a-z, 0-9, '-' and '_' (no dot, which ends it;
// nothing a header or cookie value must escape).
func Check(id string) error {
	if id == "" {
		return errors.New("empty session id")
	}
	if len(id) > MaxLen {
		return fmt.Errorf("session id of %d bytes, over %d", len(id), MaxLen)
	}
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			return fmt.Errorf("session id %q has %q, outside A-Z a-z 0-9 - _", id, id[i])
		}
	}
	return nil
}

func idByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// Join returns the wire form of a value signed for session id.
func Join(id, signed string) string { return id + "." + signed }

// ErrNoPlainID and ErrMismatch are why a wire value is refused: it has no
// plain id in front (the format of before mcpdoor carried one, which every
// replica refuses alike), or its plain id is not the signed one.
var (
	ErrNoPlainID = errors.New("no plain session id before the signed part")
	ErrMismatch  = errors.New("its plain session id is not the signed one")
)

// Split returns the plain id and the signed part of a wire value, or
// ErrNoPlainID. The plain id is unverified until Matches says so.
func Split(wire string) (id, signed string, err error) {
	id, signed, ok := strings.Cut(wire, ".")
	if !ok || Check(id) != nil {
		return "", "", ErrNoPlainID
	}
	return id, signed, nil
}

// Matches returns ErrMismatch unless the plain id equals the signed one.
func Matches(plain, signedID string) error {
	if plain != signedID {
		return ErrMismatch
	}
	return nil
}
