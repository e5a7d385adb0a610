package providers

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Limits on what a request may carry. They are enforced before anything is
// sent, so an oversize upload costs neither the transfer nor the bill.
const (
	// MaxImageBytes bounds one image.
	MaxImageBytes = 5 << 20
	// MaxImageRequestBytes bounds all images of one request together.
	MaxImageRequestBytes = 20 << 20
	// MaxDocumentBytes bounds one PDF.
	MaxDocumentBytes = 8 << 20
	// MaxDocumentRequestBytes bounds all PDFs of one request together.
	MaxDocumentRequestBytes = 16 << 20
)

// ErrAttachment is wrapped by every error about an image or document that
// cannot be sent: an unrecognised type, a size over a limit, or a model that
// cannot read it. Such a request is refused before any network call.
var ErrAttachment = errors.New("attachment refused")

// Image is a picture attached to a [Message]. Its type is decided from the
// bytes alone (PNG, JPEG, GIF or WebP), never from a file name or declared
// MIME type, so text named photo.png is refused rather than sent.
type Image struct {
	// Data is the encoded image.
	Data []byte
}

// Document is a PDF attached to a [Message]. Only PDF is supported and it is
// recognised by its %PDF- signature.
type Document struct {
	// Name is the file name shown to the model; empty means "document.pdf".
	Name string
	// Data is the PDF file.
	Data []byte
}

// SniffImage returns the MIME type of an image recognised by its first
// bytes, or "" when data is not a PNG, JPEG, GIF or WebP image.
func SniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// IsPDF reports whether data starts with the PDF signature.
func IsPDF(data []byte) bool { return bytes.HasPrefix(data, []byte("%PDF-")) }

// checkAttachments refuses a request whose attachments could not be sent:
// wrong type by their bytes, or over a limit. It runs before any network
// call.
func checkAttachments(msgs []Message) (images, docs bool, err error) {
	var imgTotal, docTotal int
	for i := range msgs {
		m := &msgs[i]
		for j := range m.Images {
			d := m.Images[j].Data
			if SniffImage(d) == "" {
				return false, false, errorf("%w: image %d of message %d is not a PNG, JPEG, GIF or WebP image by its content (%s)", ErrAttachment, j+1, i+1, describeBytes(d))
			}
			if len(d) > MaxImageBytes {
				return false, false, errorf("%w: image %d of message %d is %s, over the %s limit per image", ErrAttachment, j+1, i+1, byteSize(int64(len(d))), byteSize(MaxImageBytes))
			}
			imgTotal += len(d)
			images = true
		}
		for j := range m.Documents {
			d := m.Documents[j].Data
			if !IsPDF(d) {
				return false, false, errorf("%w: document %q is not a PDF by its content (%s); only PDF is supported", ErrAttachment, m.Documents[j].name(), describeBytes(d))
			}
			if len(d) > MaxDocumentBytes {
				return false, false, errorf("%w: document %q is %s, over the %s limit per document", ErrAttachment, m.Documents[j].name(), byteSize(int64(len(d))), byteSize(MaxDocumentBytes))
			}
			docTotal += len(d)
			docs = true
		}
	}
	if imgTotal > MaxImageRequestBytes {
		return false, false, errorf("%w: the images of this request total %s, over the %s limit per request", ErrAttachment, byteSize(int64(imgTotal)), byteSize(MaxImageRequestBytes))
	}
	if docTotal > MaxDocumentRequestBytes {
		return false, false, errorf("%w: the documents of this request total %s, over the %s limit per request", ErrAttachment, byteSize(int64(docTotal)), byteSize(MaxDocumentRequestBytes))
	}
	return images, docs, nil
}

func describeBytes(d []byte) string {
	if len(d) == 0 {
		return "it is empty"
	}
	return fmt.Sprintf("it starts %q", snippet(d[:min(len(d), 16)], 16))
}

func (d *Document) name() string {
	if d.Name == "" {
		return "document.pdf"
	}
	return d.Name
}

// plainMessage has Message's fields and tags but none of its methods, so
// encoding/json encodes it field by field. A Message converts to it freely.
type plainMessage Message

// MarshalJSON encodes m in the OpenAI chat format. Without attachments the
// bytes are exactly those of the plain field-by-field encoding; with them,
// content becomes an array: the text part (when Content is not empty), then
// one image_url part per image and one file part per document, each carrying
// its bytes as a base64 data URL.
func (m Message) MarshalJSON() ([]byte, error) {
	if len(m.Images) == 0 && len(m.Documents) == 0 {
		return json.Marshal((*plainMessage)(&m))
	}
	parts, err := contentParts(&m)
	if err != nil {
		return nil, err
	}
	w := struct {
		Role       string        `json:"role"`
		Content    []contentPart `json:"content"`
		Name       string        `json:"name,omitempty"`
		ToolCalls  []ToolCall    `json:"tool_calls,omitempty"`
		ToolCallID string        `json:"tool_call_id,omitempty"`
	}{m.Role, parts, m.Name, m.ToolCalls, m.ToolCallID}
	return json.Marshal(&w)
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     *string   `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
	File     *filePart `json:"file,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type filePart struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

func contentParts(m *Message) ([]contentPart, error) {
	parts := make([]contentPart, 0, 1+len(m.Images)+len(m.Documents))
	if m.Content != "" {
		parts = append(parts, contentPart{Type: "text", Text: &m.Content})
	}
	for i := range m.Images {
		mt := SniffImage(m.Images[i].Data)
		if mt == "" {
			return nil, errorf("%w: image %d is not a PNG, JPEG, GIF or WebP image by its content", ErrAttachment, i+1)
		}
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: dataURL(mt, m.Images[i].Data)}})
	}
	for i := range m.Documents {
		d := &m.Documents[i]
		if !IsPDF(d.Data) {
			return nil, errorf("%w: document %q is not a PDF by its content", ErrAttachment, d.name())
		}
		parts = append(parts, contentPart{Type: "file", File: &filePart{Filename: d.name(), FileData: dataURL("application/pdf", d.Data)}})
	}
	return parts, nil
}

func dataURL(mediaType string, data []byte) string {
	var b strings.Builder
	b.Grow(len("data:;base64,") + len(mediaType) + base64.StdEncoding.EncodedLen(len(data)))
	b.WriteString("data:")
	b.WriteString(mediaType)
	b.WriteString(";base64,")
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = enc.Write(data)
	_ = enc.Close()
	return b.String()
}

// UnmarshalJSON decodes a message in either content form: a string, or an
// array of parts, whose text parts are joined into Content and whose
// image_url and file data URLs become Images and Documents. It lets a server
// written with this package (a test fake, an API front end) read what a
// client sent.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Name       string          `json:"name"`
		ToolCalls  []ToolCall      `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, Name: w.Name, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID}
	c := bytes.TrimSpace(w.Content)
	if len(c) == 0 || string(c) == "null" {
		return nil
	}
	if c[0] == '"' {
		return json.Unmarshal(c, &m.Content)
	}
	var parts []struct {
		Type     string    `json:"type"`
		Text     string    `json:"text"`
		ImageURL *imageURL `json:"image_url"`
		File     *filePart `json:"file"`
	}
	if err := json.Unmarshal(c, &parts); err != nil {
		return errorf("message content is neither a string nor an array of parts: %w", err)
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			texts = append(texts, p.Text)
		case "image_url":
			if p.ImageURL == nil {
				return errors.New("image_url part without an image_url object")
			}
			b, err := decodeDataURL(p.ImageURL.URL)
			if err != nil {
				return errorf("image_url part: %w", err)
			}
			m.Images = append(m.Images, Image{Data: b})
		case "file":
			if p.File == nil {
				return errors.New("file part without a file object")
			}
			b, err := decodeDataURL(p.File.FileData)
			if err != nil {
				return errorf("file part: %w", err)
			}
			m.Documents = append(m.Documents, Document{Name: p.File.Filename, Data: b})
		default:
			return errorf("unsupported content part type %q", p.Type)
		}
	}
	m.Content = strings.Join(texts, "\n")
	return nil
}

func decodeDataURL(u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, errors.New("only data: URLs are accepted")
	}
	_, payload, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return nil, errors.New("data URL is not base64")
	}
	return base64.StdEncoding.DecodeString(payload)
}
