package tests

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// contentType is the media type of a response that spells out its MCP
// result (autoexpose.ContentMediaType), written out so that the test reads
// as the wire does.
const contentType = "application/vnd.mcpdoor.content+json"

// wavBytes is a valid WAV file: a header and four silent 8-bit samples.
func wavBytes() []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	b = binary.LittleEndian.AppendUint32(b, 16) // fmt chunk size
	b = binary.LittleEndian.AppendUint16(b, 1)  // PCM
	b = binary.LittleEndian.AppendUint16(b, 1)  // mono
	b = binary.LittleEndian.AppendUint32(b, 8000)
	b = binary.LittleEndian.AppendUint32(b, 8000) // bytes per second
	b = binary.LittleEndian.AppendUint16(b, 1)    // block align
	b = binary.LittleEndian.AppendUint16(b, 8)    // bits per sample
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, 4)
	b = append(b, 0x80, 0x80, 0x80, 0x80)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

var (
	pngB64 = base64.StdEncoding.EncodeToString(pngBytes())
	wavB64 = base64.StdEncoding.EncodeToString(wavBytes())
)

// richBody is a response in the content convention: every kind of block a
// tool result may hold, and structured content.
var richBody = `{"content":[` +
	`{"type":"text","text":"Five blocks:"},` +
	`{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},` +
	`{"type":"audio","data":"` + wavB64 + `","mimeType":"audio/wav","annotations":{"audience":["user"]}},` +
	`{"type":"resource","resource":{"uri":"test://notes/1","mimeType":"text/plain","text":"an embedded note"}},` +
	`{"type":"resource_link","uri":"test://notes/2","name":"note-2","title":"Note 2","mimeType":"text/plain"}` +
	`],"structuredContent":{"blocks":5}}`

// contentRouter serves each body in bodies at POST /<name>, with the
// content convention's media type.
func contentRouter(t *testing.T, bodies map[string]string) (http.Handler, *autoexpose.Door) {
	t.Helper()
	r := chi.NewRouter()
	for name, body := range bodies {
		r.Post("/"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			io.WriteString(w, body)
		})
	}
	cfg := autoexpose.Config{Name: "content", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, door
}

// TestContentConvention: a response of media type
// application/vnd.mcpdoor.content+json is the MCP result it spells out, block
// for block, while the HTTP door answers it unchanged.
func TestContentConvention(t *testing.T) {
	h, door := contentRouter(t, map[string]string{"rich": richBody})
	s := inProcess(t, h, door)

	r := s.post("/rich", `{}`)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != contentType || string(r.Body) != richBody {
		t.Errorf("HTTP door: %d %s %s\nwant 200 %s %s", r.Status, r.Header.Get("Content-Type"), r.Body, contentType, richBody)
	}

	const want = `{"content":[` +
		`{"type":"text","text":"Five blocks:"},` +
		`{"type":"image","mimeType":"image/png","data":"` + "%PNG%" + `"},` +
		`{"type":"audio","mimeType":"audio/wav","data":"` + "%WAV%" + `","annotations":{"audience":["user"]}},` +
		`{"type":"resource","resource":{"uri":"test://notes/1","mimeType":"text/plain","text":"an embedded note"}},` +
		`{"type":"resource_link","mimeType":"text/plain","uri":"test://notes/2","name":"note-2","title":"Note 2"}` +
		`],"structuredContent":{"blocks":5}}`
	wantJSON := strings.NewReplacer("%PNG%", pngB64, "%WAV%", wavB64).Replace(want)
	cs := s.connect(mcpOptions{})
	if got := resultJSON(t, call(t, cs, "rich", map[string]any{})); got != wantJSON {
		t.Errorf("MCP door:\n got %s\nwant %s", got, wantJSON)
	}
}

// TestContentConventionRefusals: a response in the convention that does not
// hold a valid result is an isError result naming what is wrong, with code
// bad_response; the HTTP door still answers it unchanged.
func TestContentConventionRefusals(t *testing.T) {
	gif := base64.StdEncoding.EncodeToString([]byte("GIF89a not really"))
	cases := []struct {
		name, body, why string
	}{
		{"not_json", `{"content":`, "the body is not JSON: unexpected end of JSON input"},
		{"not_object", `[1]`, "the body is not a JSON object"},
		{"unknown_key", `{"content":[],"isError":true}`, `unknown key "isError" (the body holds "content" and, optionally, "structuredContent")`},
		{"no_content", `{"structuredContent":{}}`, `no "content" array`},
		{"content_not_array", `{"content":{"type":"text","text":"x"}}`, `"content" is not an array`},
		{"no_type", `{"content":[{"text":"x"}]}`, "content[0]: the block has no type"},
		{"tool_use", `{"content":[{"type":"text","text":"x"},{"type":"tool_use","id":"1","name":"f","input":{}}]}`,
			`content[1]: type "tool_use" is not a tool result's (want text, image, audio, resource or resource_link)`},
		{"text_without_text", `{"content":[{"type":"text"}]}`, `content[0]: a text block needs "text"`},
		{"bad_base64", `{"content":[{"type":"image","mimeType":"image/png","data":"@@@"}]}`, "content[0]: illegal base64 data at input byte 0"},
		{"image_not_png", `{"content":[{"type":"image","mimeType":"image/png","data":"` + gif + `"}]}`, "content[0]: the image is not image/png: the data is gif"},
		{"image_no_mime", `{"content":[{"type":"image","data":"` + pngB64 + `"}]}`, `content[0]: an image block needs "mimeType"`},
		{"audio_not_wav", `{"content":[{"type":"audio","mimeType":"audio/wav","data":"` + pngB64 + `"}]}`, "content[0]: the audio is not audio/wav: the data does not start like audio/wav"},
		{"resource_without_uri", `{"content":[{"type":"resource","resource":{"mimeType":"text/plain","text":"x"}}]}`, `content[0]: the resource's "uri" "" is not an absolute URI`},
		{"resource_empty", `{"content":[{"type":"resource","resource":{"uri":"test://x"}}]}`, `content[0]: the resource needs "text" or "blob"`},
		{"resource_both", `{"content":[{"type":"resource","resource":{"uri":"test://x","text":"a","blob":"YQ=="}}]}`, `content[0]: the resource has both "text" and "blob"`},
		{"resource_blob_not_png", `{"content":[{"type":"resource","resource":{"uri":"test://x","mimeType":"image/png","blob":"` + gif + `"}}]}`, "content[0]: the resource's blob is not image/png: the data is gif"},
		{"link_without_name", `{"content":[{"type":"resource_link","uri":"test://x"}]}`, `content[0]: a resource_link block needs "name"`},
		{"structured_not_object", `{"content":[],"structuredContent":[1,2]}`, `"structuredContent" is not a JSON object`},
	}
	bodies := map[string]string{}
	for _, c := range cases {
		bodies[c.name] = c.body
	}
	h, door := contentRouter(t, bodies)
	s := inProcess(t, h, door)
	cs := s.connect(mcpOptions{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := s.post("/"+c.name, `{}`); r.Status != http.StatusOK || string(r.Body) != c.body {
				t.Errorf("HTTP door: %d %s, want 200 %s", r.Status, r.Body, c.body)
			}
			text, _ := json.Marshal("Response from POST /" + c.name + " is not a valid " + contentType + " result: " + c.why + ".")
			why, _ := json.Marshal(c.why)
			want := `{"content":[{"type":"text","text":` + string(text) + `}],` +
				`"structuredContent":{"error":{"code":"bad_response","effect":"unknown","message":` + string(why) + `,"status":200}},"isError":true}`
			if got := resultJSON(t, call(t, cs, c.name, map[string]any{})); got != want {
				t.Errorf("MCP door:\n got %s\nwant %s", got, want)
			}
		})
	}
}
