package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Data is the Data of an MCP tool's result, for programs (`dialect run
// --json`).
type Data struct {
	Server     string        `json:"server"`
	Tool       string        `json:"tool"`
	Structured any           `json:"structured,omitempty"`
	Content    []ContentInfo `json:"content,omitempty"`
}

// ContentInfo describes one content item that is not text: an image,
// audio, a resource or a link to one.
type ContentInfo struct {
	Type     string `json:"type"`
	MIMEType string `json:"mime_type,omitempty"`
	URI      string `json:"uri,omitempty"`
	Size     int64  `json:"size"`
}

// render turns a tool's result into text for the model: text content
// joined; structured content as compact JSON when there is no text (a
// server is asked to mirror it as text); images, audio and resources
// named with their type and size, never inlined. The text is bounded to
// max bytes.
func render(server, tool string, res *sdk.CallToolResult, max int) (string, Data) {
	d := Data{Server: server, Tool: tool, Structured: res.StructuredContent}
	var parts []string
	texts := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			texts++
		case *sdk.ImageContent:
			parts = append(parts, d.note("image", c.MIMEType, "", int64(len(c.Data))))
		case *sdk.AudioContent:
			parts = append(parts, d.note("audio", c.MIMEType, "", int64(len(c.Data))))
		case *sdk.ResourceLink:
			var size int64 = -1
			if c.Size != nil {
				size = *c.Size
			}
			parts = append(parts, d.note("resource link", c.MIMEType, c.URI, size))
		case *sdk.EmbeddedResource:
			if r := c.Resource; r != nil {
				size := int64(len(r.Blob))
				if r.Text != "" {
					size = int64(len(r.Text))
				}
				parts = append(parts, d.note("resource", r.MIMEType, r.URI, size))
			}
		}
	}
	if texts == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	text := strings.Join(parts, "\n")
	if len(text) > max {
		cut := max
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		text = text[:cut] + fmt.Sprintf("\n… (%d more bytes not shown)", len(text)-cut)
	}
	return text, d
}

// note names a content item and records it in d.
func (d *Data) note(kind, mime, uri string, size int64) string {
	d.Content = append(d.Content, ContentInfo{Type: kind, MIMEType: mime, URI: uri, Size: size})
	s := "[" + kind
	if uri != "" {
		s += " " + oneLine(uri, 200)
	}
	if mime != "" {
		s += ", " + oneLine(mime, 60)
	}
	if size >= 0 {
		s += ", " + byteSize(size)
	}
	return s + "]"
}

// byteSize writes n as "512 B", "12.3 KB", "4.0 MB".
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1000/1000)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
