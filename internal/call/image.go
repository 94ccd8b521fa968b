package call

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // image/gif responses are decoded and checked
	_ "image/jpeg"
	_ "image/png"

	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An image a route answers (an image/* response, an image block or blob of
// the content convention) is decoded before a client is sent it, so that a
// client is never sent an image it cannot show: a truncated or corrupt
// image passes a look at its header. Decoding costs the image's pixels in
// memory, which a compressed image does not bound: a 500 KiB PNG of
// 8000×8000 16-bit pixels decodes to 488 MiB. So the header is read first,
// and an image whose pixels would take more than its budget is refused
// without being decoded.
//
// The budget is imageBudgetFactor times mcp.max_body_bytes, the limit the
// operator already set on what one call may hold: 64 MiB at the default 4
// MiB, room for a 5K screenshot (5120×2880, 8-bit RGBA: 56 MiB), while an
// image whose pixels are hundreds of times its bytes is refused.
const imageBudgetFactor = 16

// maxImagePixels bounds the pixels mcpdoor decodes whatever the budget, so
// that a large mcp.max_body_bytes does not let one image take gigabytes.
const maxImagePixels = 64 << 20

// ImageBudget returns the bytes of pixels mcpdoor decodes to check one
// image under mcp.max_body_bytes maxBody.
func ImageBudget(maxBody int64) int64 { return imageBudgetFactor * maxBody }

// imageFormats maps an image MIME type to the name image.Decode gives its
// format.
var imageFormats = map[string]string{
	"image/png":  "png",
	"image/jpeg": "jpeg",
	"image/jpg":  "jpeg",
	"image/gif":  "gif",
}

func imageResult(t *toolset.Tool, mediaType string, body []byte, status int) *mcp.CallToolResult {
	if why := checkImage(mediaType, body, t.ImageBudget); why != "" {
		return t.Fail(
			fmt.Sprintf("Response from %s is not a valid %s image: %s.", t.Request, mediaType, why),
			toolset.ErrorInfo{Code: toolset.CodeBadResponse, Message: why, Status: status, Effect: toolset.EffectUnknown})
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: body, MIMEType: mediaType}}}
}

// checkImage says why data is not an image of type mediaType that mcpdoor
// may send, or returns "" when it is: its header must be the type's, its
// pixels must fit budget bytes (see imageBudget), and then it must decode.
func checkImage(mediaType string, data []byte, budget int64) (why string) {
	want, ok := imageFormats[mediaType]
	if !ok {
		return "mcpdoor cannot check this image type; serve PNG, JPEG or GIF"
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return err.Error()
	}
	if format != want {
		return fmt.Sprintf("the data is %s", format)
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	per := bytesPerPixel(cfg.ColorModel)
	switch size := pixels * per; {
	case size > budget:
		return fmt.Sprintf("%dx%d pixels of %d bytes decode to %s, more than the %s mcpdoor decodes to check an image (%d times mcp.max_body_bytes); serve a smaller image, or raise mcp.max_body_bytes",
			cfg.Width, cfg.Height, per, mib(size), mib(budget), imageBudgetFactor)
	case pixels > maxImagePixels:
		return fmt.Sprintf("%dx%d pixels is more than the %d mcpdoor decodes to check an image; serve a smaller image", cfg.Width, cfg.Height, maxImagePixels)
	}
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return err.Error()
	}
	return ""
}

// bytesPerPixel is what one pixel of an image of color model m takes once
// decoded, as the image package holds it: 8 for 16-bit color, 4 for 8-bit,
// 3 for YCbCr (at most, with no subsampling), 1 for a palette.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.YCbCrModel:
		return 3
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8 // 16-bit color, or a model this list does not know
}

// mib writes n bytes in MiB, rounded down.
func mib(n int64) string { return fmt.Sprintf("%d MiB", n>>20) }
