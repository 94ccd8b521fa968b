// Package web holds the blog's HTTP helpers.
package web

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"mime"
	"net/http"
)

// decoders decode a body by its media type.
var decoders = map[string]func(io.Reader, any) error{
	"application/json": func(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) },
	"application/xml":  func(r io.Reader, v any) error { return xml.NewDecoder(r).Decode(v) },
}

// Decode reads the request's body into dst by its Content-Type (JSON when
// it names none).
//
//mcpdoor:decoder dst
func Decode(r *http.Request, dst any) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "" {
		mt = "application/json"
	}
	dec, ok := decoders[mt]
	if !ok {
		return errors.New("unsupported media type " + mt)
	}
	return dec(r.Body, dst)
}
