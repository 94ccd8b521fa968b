// Package legacy is the blog's first API, at an import path whose last
// element holds a dot, which the runtime's names of its functions escape.
package legacy

//go:generate go run github.com/mcpdoor/mcpdoor/cmd/mcpdoor gen

import (
	"encoding/json"
	"net/http"
)

// Stats answers the old API's hit count.
func Stats(w http.ResponseWriter, r *http.Request) {
	json.NewEncoder(w).Encode(map[string]int{"hits": 1})
}
