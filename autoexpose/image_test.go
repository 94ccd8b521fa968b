package autoexpose

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// uniformPNG returns a w×h PNG of 16-bit RGB pixels, all black, written by
// hand so that no test holds its pixels: the zlib stream is one deflated
// run of rows repeated, and the checksum is taken row by row. An
// 8000×8000 image is a few hundred KiB, and decodes to 488 MiB.
func uniformPNG(w, h int) []byte {
	const rowsPerRun = 100     // h must be a multiple
	row := make([]byte, 1+6*w) // the filter byte (none), then the pixels
	var run bytes.Buffer
	fw, _ := flate.NewWriter(&run, flate.BestCompression)
	for range rowsPerRun {
		fw.Write(row)
	}
	fw.Flush() // ends the run on a byte boundary, with no history after it

	sum := adler32.New()
	for range h {
		sum.Write(row)
	}
	var z bytes.Buffer
	z.Write([]byte{0x78, 0xda}) // zlib, deflate with a 32 KiB window
	for range h / rowsPerRun {
		z.Write(run.Bytes())
	}
	z.Write([]byte{0x01, 0x00, 0x00, 0xff, 0xff}) // a last, empty stored block
	z.Write(sum.Sum(nil))

	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		io.WriteString(crc, typ)
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 2 // 16 bits a sample, RGB
	chunk("IHDR", ihdr)
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

var hugePNG = sync.OnceValue(func() []byte { return uniformPNG(8000, 8000) })

// TestUniformPNG: the hand-written PNG is one image/png reads, with the
// size it says (checked on a small one, which decodes cheaply).
func TestUniformPNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(uniformPNG(300, 200)))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 300 || b.Dy() != 200 || img.ColorModel() != color.RGBA64Model {
		t.Fatalf("%v %v", b, img.ColorModel())
	}
	if r, g, b, _ := img.At(299, 199).RGBA(); r|g|b != 0 {
		t.Fatalf("a pixel is %d %d %d", r, g, b)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(hugePNG()))
	if err != nil || cfg.Width != 8000 || cfg.Height != 8000 {
		t.Fatalf("%+v %v", cfg, err)
	}
	t.Logf("the 8000×8000 16-bit PNG is %d bytes", len(hugePNG()))
}

// imageServer serves POST /chart answering body as image/png, and
// POST /blocks answering it as an image block of the content convention.
func imageServer(t *testing.T, body []byte) *mcp.ClientSession {
	t.Helper()
	r := chi.NewRouter()
	r.Post("/chart", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(body)
	})
	r.Post("/blocks", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ContentMediaType)
		io.WriteString(w, `{"content":[{"type":"image","mimeType":"image/png","data":"`+base64.StdEncoding.EncodeToString(body)+`"}]}`)
	})
	d, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// firstText is the text of a result's first block, or what the block is.
func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return "no content"
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return fmt.Sprintf("a %T block", res.Content[0])
}

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestImageDecodeBudget: a route's 8000×8000 16-bit PNG, a few hundred KiB,
// is refused from its header, before any pixel is decoded: the call
// allocates a few MiB, not the 488 MiB its pixels take (as an image/png
// response and as an image block alike). A small image is still decoded,
// so that a truncated one is refused.
func TestImageDecodeBudget(t *testing.T) {
	cs := imageServer(t, hugePNG())
	const why = "8000x8000 pixels of 8 bytes decode to 488 MiB, more than the 64 MiB mcpdoor decodes to check an image (16 times mcp.max_body_bytes); serve a smaller image, or raise mcp.max_body_bytes"
	for tool, want := range map[string]string{
		"chart":  "Response from POST /chart is not a valid image/png image: " + why + ".",
		"blocks": "Response from POST /blocks is not a valid " + ContentMediaType + " result: content[0]: the image is not image/png: " + why + ".",
	} {
		var res *mcp.CallToolResult
		var err error
		n := allocated(func() {
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		})
		t.Logf("%s: one call allocated %.1f MiB", tool, float64(n)/(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		if text := firstText(res); !res.IsError || text != want {
			t.Errorf("%s: isError %v, %q\nwant %q", tool, res.IsError, text, want)
		}
		if n > 16<<20 {
			t.Errorf("%s: one call allocated %d bytes; want under 16 MiB", tool, n)
		}
	}

	small := uniformPNG(300, 200)
	cs = imageServer(t, small[:len(small)-40])
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "chart", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := firstText(res); !res.IsError || !strings.HasPrefix(text, "Response from POST /chart is not a valid image/png image: ") {
		t.Errorf("a truncated PNG: isError %v, %q", res.IsError, text)
	}
}

// BenchmarkCheckHugePNG: what mapping a route's 8000×8000 16-bit PNG to a
// result allocates (B/op), within the default mcp.max_body_bytes: the
// image's check, which refuses it from its header.
func BenchmarkCheckHugePNG(b *testing.B) {
	data := hugePNG()
	r := chi.NewRouter()
	r.Post("/chart", func(http.ResponseWriter, *http.Request) {})
	d, err := Install(r, enabled(MCPConfig{}))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	header := http.Header{"Content-Type": {"image/png"}}
	b.ReportAllocs()
	for b.Loop() {
		if res, _ := d.Result("chart", http.StatusOK, header, data); !res.IsError {
			b.Fatal("accepted")
		}
	}
}
