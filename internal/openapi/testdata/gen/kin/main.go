// Command kin loads an OpenAPI document with kin-openapi, validates it, and
// writes it as JSON, as an oapi-codegen server's GetSwagger hands it over:
// go run . library.yaml > ../../oapi-codegen.json. See testdata/README.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/getkin/kin-openapi/openapi3"
)

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
