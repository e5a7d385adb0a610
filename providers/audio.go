package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
)

// MaxAudioBytes bounds one upload to [Client.Transcribe], matching what the
// OpenAI endpoint itself accepts, so an oversize file is refused here
// instead of after the transfer.
const MaxAudioBytes = 25 << 20

// SniffAudio recognises an audio container by its first bytes and returns
// its MIME type and usual file extension: flac, mp3, mp4/m4a, ogg, wav or
// webm. ok is false for anything else, whatever its name claims.
func SniffAudio(data []byte) (mimeType, ext string, ok bool) {
	switch {
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "audio/flac", "flac", true
	case bytes.HasPrefix(data, []byte("ID3")):
		return "audio/mpeg", "mp3", true
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0 && (data[1]>>1)&0x3 == 0x1:
		// An MPEG frame header whose layer bits say Layer III (ADTS AAC
		// shares the sync word but has layer 0).
		return "audio/mpeg", "mp3", true
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		return "audio/mp4", "m4a", true
	case bytes.HasPrefix(data, []byte("OggS")):
		return "audio/ogg", "ogg", true
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return "audio/wav", "wav", true
	case bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3}) && bytes.Contains(data[:min(len(data), 64)], []byte("webm")):
		return "audio/webm", "webm", true
	}
	return "", "", false
}

// TranscriptionRequest is one speech-to-text call.
type TranscriptionRequest struct {
	// Model is the transcription model ("whisper-large-v3", "whisper-1").
	Model string
	// Audio is the recording; its type is decided by [SniffAudio].
	Audio []byte
	// Language is an ISO-639-1 hint; empty lets the model detect it.
	Language string
	// Prompt guides spelling and style; empty means none.
	Prompt string
}

// Transcribe sends audio to the provider's OpenAI-compatible
// /audio/transcriptions endpoint and returns the text. Audio that is not a
// recognised container, or is over [MaxAudioBytes], is refused before any
// request. The upload's file name is derived from the sniffed type, never
// taken from the caller.
func (c *Client) Transcribe(ctx context.Context, req *TranscriptionRequest) (string, error) {
	if req == nil || req.Model == "" {
		return "", errorf("%s: transcription needs a model", c.name)
	}
	mt, ext, ok := SniffAudio(req.Audio)
	if !ok {
		return "", errorf("%s: %w: the audio is not flac, mp3, mp4/m4a, ogg, wav or webm by its content (%s)", c.name, ErrAttachment, describeBytes(req.Audio))
	}
	if len(req.Audio) > MaxAudioBytes {
		return "", errorf("%s: %w: the audio is %s, over the %s limit", c.name, ErrAttachment, byteSize(int64(len(req.Audio))), byteSize(MaxAudioBytes))
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename="audio.%s"`, ext))
	h.Set("Content-Type", mt)
	part, err := mw.CreatePart(h)
	if err != nil {
		return "", err
	}
	_, _ = part.Write(req.Audio)
	fields := [][2]string{{"model", req.Model}, {"response_format", "json"}}
	if req.Language != "" {
		fields = append(fields, [2]string{"language", req.Language})
	}
	if req.Prompt != "" {
		fields = append(fields, [2]string{"prompt", req.Prompt})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return "", err
		}
	}
	if err := mw.Close(); err != nil {
		return "", err
	}
	data, err := c.post(ctx, req.Model, "audio/transcriptions", mw.FormDataContentType(), body.Bytes())
	if err != nil {
		return "", err
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Text == nil {
		if err == nil {
			err = errorf("no text field")
		}
		return "", errorf("%s: decode transcription: %w (body starts %q)", c.name, err, snippet(data, 120))
	}
	return strings.TrimSpace(*out.Text), nil
}

// post sends one non-chat request (embeddings, transcriptions) with the
// client's credential, headers and timeout, and returns the size-limited
// success body. A non-2xx answer becomes an [*APIError].
func (c *Client) post(ctx context.Context, model, op, contentType string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errClientTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpointFor(model, op), bytes.NewReader(body))
	if err != nil {
		return nil, errorf("%s: build request: %w", c.name, err)
	}
	hreq.Header.Set("Content-Type", contentType)
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "joshbot-providers")
	if err := c.setAuth(ctx, hreq.Header); err != nil {
		return nil, err
	}
	for k, v := range c.headers {
		hreq.Header[k] = v
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return nil, c.transportError(ctx, hreq, err)
	}
	defer closeBody(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := readLimited(resp.Body, maxErrorBody)
		return nil, newAPIError(c.name, resp, data, credentials(hreq.Header))
	}
	return c.readBody(ctx, resp)
}
