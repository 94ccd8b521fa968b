package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/getkin/kin-openapi/openapi3"
)

// Loads the spec with kin-openapi, as oapi-codegen's generated GetSwagger
// does, validates it, and writes it back as JSON.
func main() {
	doc, err := openapi3.NewLoader().LoadFromFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		panic(err)
	}
	b, err := doc.MarshalJSON()
	if err != nil {
		panic(err)
	}
	var out bytes.Buffer
	json.Indent(&out, b, "", "  ")
	fmt.Println(out.String())
}
