package token_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/token"
)

// TestNewKeysErrors: NewKeys refuses no secret and a short one, with texts
// that say which secret and how long it is.
func TestNewKeysErrors(t *testing.T) {
	short := bytes.Repeat([]byte("s"), 31)
	enough := bytes.Repeat([]byte("e"), 32)
	for _, tc := range []struct {
		name    string
		secrets [][]byte
		want    string
		short   bool // the error wraps keyring.ErrShortSecret
	}{
		{"none", nil, "mcpdoor: no secret given", false},
		{"31 bytes", [][]byte{short}, "mcpdoor: secret 1 of 1: secret is shorter than 32 bytes (it has 31)", true},
		{"second of two short", [][]byte{enough, short}, "mcpdoor: secret 2 of 2: secret is shorter than 32 bytes (it has 31)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := token.NewKeys(tc.secrets...)
			if err == nil || err.Error() != tc.want || errors.Is(err, keyring.ErrShortSecret) != tc.short {
				t.Errorf("NewKeys: %v; want %q (wrapping ErrShortSecret: %v)", err, tc.want, tc.short)
			}
		})
	}
	if _, err := token.NewKeys(enough); err != nil {
		t.Errorf("NewKeys of %d bytes: %v", len(enough), err)
	}
}
