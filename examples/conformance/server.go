package main

// The conformance example's tool server: one plain chi
// route per fixture tool that the official MCP conformance suite
// (@modelcontextprotocol/conformance) calls, each answering what the
// suite's scenario asks of it.
//
// The handlers are ordinary HTTP handlers: text, an image and audio are
// plain responses; several content blocks are a response of type
// autoexpose.ContentMediaType; logging, progress, sampling, elicitation and
// roots use autoexpose.Log, Progress, Sample, Elicit and Roots, which over
// HTTP do nothing (Log, Progress) or say that no MCP client is there to
// ask (Sample, Elicit, Roots). The fixtures of the 2026-07-28 scenarios are
// in inputs.go.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// newServer builds the router (routes first, then autoexpose.Install) and
// returns the installed MCP door: what to serve (it serves the router), and
// what to close.
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	r, err := newRouter(&cfg)
	if err != nil {
		return nil, err
	}
	return autoexpose.Install(r, cfg)
}

// newRouter builds the router alone, for autoexpose.ServeStdio, and describes
// its tools in cfg.Declared: the suite's descriptions, and the input
// schemas of the tools that take arguments.
func newRouter(cfg *autoexpose.Config) (chi.Router, error) {
	if cfg.Declared == nil {
		cfg.Declared = make(map[string]autoexpose.Declaration)
	}
	for _, m := range []map[string]autoexpose.Declaration{declared, inputDeclared} {
		for name, d := range m {
			cfg.Declared[name] = d
		}
	}
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Post("/test_simple_text", simpleText)
	r.Post("/test_image_content", imageContent)
	r.Post("/test_audio_content", audioContent)
	r.Post("/test_embedded_resource", embeddedResource)
	r.Post("/test_multiple_content_types", multipleContentTypes)
	r.Post("/test_tool_with_logging", withLogging)
	r.Post("/test_tool_with_progress", withProgress)
	r.Post("/test_error_handling", errorHandling)
	r.Post("/test_sampling", sampling)
	r.Post("/test_elicitation", elicitation)
	r.Post("/test_elicitation_sep1034_defaults", elicitationDefaults)
	r.Post("/test_elicitation_sep1330_enums", elicitationEnums)
	r.Post("/json_schema_2020_12_tool", jsonSchema2020)
	r.Post("/test_header_param", jsonSchema2020)
	for path, h := range inputRoutes {
		r.Post(path, h)
	}
	return r, nil
}

// MessageRequest is the input of test_elicitation.
type MessageRequest struct {
	Message string `json:"message" jsonschema:"the message to show the user"`
}

// PromptRequest is the input of test_sampling.
type PromptRequest struct {
	Prompt string `json:"prompt" jsonschema:"the prompt to send to the LLM"`
}

var declared = map[string]autoexpose.Declaration{
	"test_simple_text":                  {Description: "Returns simple text."},
	"test_image_content":                {Description: "Returns an image: one red pixel, as PNG."},
	"test_audio_content":                {Description: "Returns audio: a moment of silence, as WAV."},
	"test_embedded_resource":            {Description: "Returns an embedded text resource."},
	"test_multiple_content_types":       {Description: "Returns text, an image and an embedded resource."},
	"test_tool_with_logging":            {Description: "Sends three log messages while it runs."},
	"test_tool_with_progress":           {Description: "Reports its progress: 0, 50 and 100 of 100."},
	"test_error_handling":               {Description: "Always fails."},
	"test_sampling":                     {Description: "Asks the client's LLM to complete a prompt.", Input: autoexpose.SchemaFor[PromptRequest]()},
	"test_elicitation":                  {Description: "Asks the user for a username and an email address.", Input: autoexpose.SchemaFor[MessageRequest]()},
	"test_elicitation_sep1034_defaults": {Description: "Asks the user for fields that have defaults (SEP-1034)."},
	"test_elicitation_sep1330_enums":    {Description: "Asks the user to choose from every kind of enum (SEP-1330)."},
	"json_schema_2020_12_tool": {Description: "Tool with JSON Schema 2020-12 features", Input: &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema",
		Type:   "object",
		Defs: map[string]*jsonschema.Schema{"address": {
			Anchor: "addressDef",
			Type:   "object",
			Properties: map[string]*jsonschema.Schema{
				"street": {Type: "string"},
				"city":   {Type: "string"},
			},
		}},
		Properties: map[string]*jsonschema.Schema{
			"name":          {Type: "string"},
			"address":       {Ref: "#/$defs/address"},
			"contactMethod": {Type: "string", Enum: []any{"phone", "email"}},
			"phone":         {Type: "string"},
			"email":         {Type: "string"},
		},
		// A phone or an email; the phone when contactMethod says so, else
		// the email (SEP-2106: the whole 2020-12 vocabulary).
		AllOf: []*jsonschema.Schema{{AnyOf: []*jsonschema.Schema{{Required: []string{"phone"}}, {Required: []string{"email"}}}}},
		If: &jsonschema.Schema{
			Properties: map[string]*jsonschema.Schema{"contactMethod": {Const: ptr[any]("phone")}},
			Required:   []string{"contactMethod"},
		},
		Then:                 &jsonschema.Schema{Required: []string{"phone"}},
		Else:                 &jsonschema.Schema{Required: []string{"email"}},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, // false
	}},
	// A tool with an argument a client also sends as a header (SEP-2243):
	// Mcp-Param-Region, which must match the argument.
	"test_header_param": {Description: "Answers the region it was called for, which the client also sends as the Mcp-Param-Region header.", Input: &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"region": {Type: "string", Extra: map[string]any{"x-mcp-header": "Region"}},
		},
		Required: []string{"region"},
	}},
}

func ptr[T any](v T) *T { return &v }

func writeText(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, text)
}

// writeContent answers content blocks, in the content convention.
func writeContent(w http.ResponseWriter, blocks ...mcp.Content) {
	w.Header().Set("Content-Type", autoexpose.ContentMediaType)
	json.NewEncoder(w).Encode(map[string]any{"content": blocks})
}

func simpleText(w http.ResponseWriter, _ *http.Request) {
	writeText(w, "This is a simple text response for testing.")
}

// redPixel is a 1x1 red PNG.
var redPixel = func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}()

// silence is a WAV file of a tenth of a second of 8 kHz 8-bit mono silence.
var silence = func() []byte {
	const rate, samples = 8000, 800
	le := binary.LittleEndian
	b := []byte("RIFF")
	b = le.AppendUint32(b, 36+samples)
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)   // the fmt chunk's size
	b = le.AppendUint16(b, 1)    // PCM
	b = le.AppendUint16(b, 1)    // one channel
	b = le.AppendUint32(b, rate) // samples a second
	b = le.AppendUint32(b, rate) // bytes a second
	b = le.AppendUint16(b, 1)    // bytes a sample
	b = le.AppendUint16(b, 8)    // bits a sample
	b = append(b, "data"...)
	b = le.AppendUint32(b, samples)
	return append(b, bytes.Repeat([]byte{0x80}, samples)...)
}()

func imageContent(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "image/png")
	w.Write(redPixel)
}

func audioContent(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "audio/wav")
	w.Write(silence)
}

func embeddedResource(w http.ResponseWriter, _ *http.Request) {
	writeContent(w, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
		URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
	}})
}

func multipleContentTypes(w http.ResponseWriter, _ *http.Request) {
	writeContent(w,
		&mcp.TextContent{Text: "Multiple content types test:"},
		&mcp.ImageContent{MIMEType: "image/png", Data: redPixel},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
		}})
}

// pause waits d, or until the request ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func withLogging(w http.ResponseWriter, r *http.Request) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(r.Context(), 50*time.Millisecond); err != nil {
				return
			}
		}
		if err := autoexpose.Log(r.Context(), "info", msg); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	writeText(w, "Tool with logging executed successfully")
}

func withProgress(w http.ResponseWriter, r *http.Request) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(r.Context(), 50*time.Millisecond); err != nil {
				return
			}
		}
		if err := autoexpose.Progress(r.Context(), done, 100, ""); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	writeText(w, "Tool with progress executed successfully")
}

func errorHandling(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "This tool intentionally returns an error for testing", http.StatusInternalServerError)
}

// askFailed answers an error of Elicit or Sample: 400 when no one can be
// asked (an HTTP caller, or an MCP client without the capability), else 502:
// the client did not answer.
func askFailed(w http.ResponseWriter, err error) {
	status := http.StatusBadGateway
	if errors.Is(err, errors.ErrUnsupported) {
		status = http.StatusBadRequest
	}
	http.Error(w, err.Error(), status)
}

func sampling(w http.ResponseWriter, r *http.Request) {
	var in PromptRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	//lint:ignore SA1019 sampling, deprecated as of MCP 2026-07-28, is what the suite tests
	res, err := autoexpose.Sample(r.Context(), &mcp.CreateMessageParams{
		//lint:ignore SA1019 see above
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	})
	if err != nil {
		askFailed(w, err)
		return
	}
	text, _ := res.Content.(*mcp.TextContent)
	if text == nil {
		http.Error(w, fmt.Sprintf("the LLM answered %T, not text", res.Content), http.StatusBadGateway)
		return
	}
	writeText(w, "LLM response: "+text.Text)
}

// elicit asks the user message with schema and answers what they did,
// after prefix.
func elicit(w http.ResponseWriter, r *http.Request, prefix, message string, schema *jsonschema.Schema) {
	res, err := autoexpose.Elicit(r.Context(), message, schema)
	if err != nil {
		askFailed(w, err)
		return
	}
	content, _ := json.Marshal(res.Content)
	writeText(w, fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content))
}

func elicitation(w http.ResponseWriter, r *http.Request) {
	var in MessageRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	elicit(w, r, "User response: ", in.Message, &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"username": {Type: "string", Description: "User's response"},
			"email":    {Type: "string", Description: "User's email address"},
		},
		Required: []string{"username", "email"},
	})
}

func elicitationDefaults(w http.ResponseWriter, r *http.Request) {
	elicit(w, r, "Elicitation completed: ", "Please review and update the form fields with defaults", &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"name":     {Type: "string", Description: "User name", Default: json.RawMessage(`"John Doe"`)},
			"age":      {Type: "integer", Description: "User age", Default: json.RawMessage(`30`)},
			"score":    {Type: "number", Description: "User score", Default: json.RawMessage(`95.5`)},
			"status":   {Type: "string", Description: "User status", Enum: []any{"active", "inactive", "pending"}, Default: json.RawMessage(`"active"`)},
			"verified": {Type: "boolean", Description: "Verification status", Default: json.RawMessage(`true`)},
		},
	})
}

// titled is a titled enum's choices, as const and title pairs.
func titled(pairs ...string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for i := 0; i+1 < len(pairs); i += 2 {
		var v any = pairs[i]
		out = append(out, &jsonschema.Schema{Const: &v, Title: pairs[i+1]})
	}
	return out
}

func elicitationEnums(w http.ResponseWriter, r *http.Request) {
	elicit(w, r, "Elicitation completed: ", "Please choose from the options", &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"untitledSingle": {Type: "string", Enum: []any{"option1", "option2", "option3"}},
			"titledSingle":   {Type: "string", OneOf: titled("value1", "First Option", "value2", "Second Option", "value3", "Third Option")},
			"legacyEnum": {Type: "string", Enum: []any{"opt1", "opt2", "opt3"},
				Extra: map[string]any{"enumNames": []any{"Option One", "Option Two", "Option Three"}}},
			"untitledMulti": {Type: "array", Items: &jsonschema.Schema{Type: "string", Enum: []any{"option1", "option2", "option3"}}},
			"titledMulti": {Type: "array", Items: &jsonschema.Schema{
				AnyOf: titled("value1", "First Choice", "value2", "Second Choice", "value3", "Third Choice")}},
		},
	})
}

// jsonSchema2020 answers the arguments it was sent.
func jsonSchema2020(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
