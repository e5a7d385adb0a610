package providers

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
)

// DefaultEmbeddingModel returns the embedding model used for provider when
// none is configured: nomic-embed-text for ollama, text-embedding-3-small
// for openai, and "" (the caller must choose) for everyone else.
func DefaultEmbeddingModel(provider string) string {
	switch provider {
	case "ollama":
		return "nomic-embed-text"
	case "openai":
		return "text-embedding-3-small"
	}
	return ""
}

// DefaultTranscriptionModel returns the speech-to-text model used for
// provider when none is configured: whisper-large-v3 for groq, whisper-1 for
// openai, and "" (the caller must choose) for everyone else.
func DefaultTranscriptionModel(provider string) string {
	switch provider {
	case "groq":
		return "whisper-large-v3"
	case "openai":
		return "whisper-1"
	}
	return ""
}

// EmbeddingRequest is one embeddings call.
type EmbeddingRequest struct {
	// Model is the embedding model.
	Model string
	// Input holds the texts to embed; at least one.
	Input []string
}

// EmbeddingResponse holds one vector per input, in input order.
type EmbeddingResponse struct {
	// Vectors[i] is the embedding of Input[i].
	Vectors [][]float32
	// Model is the model the provider says answered.
	Model string
	// Usage is zero when the provider did not report it.
	Usage Usage
}

// ErrEmbeddingIndex is wrapped by the error [Client.Embed] returns when the
// provider's answer does not pair exactly one vector with each input: a
// duplicate, missing or out-of-range index. Trusting array order instead
// would attach a vector to the wrong text without any error.
var ErrEmbeddingIndex = errors.New("embedding indices do not match the inputs")

// Embed asks the provider's OpenAI-compatible /embeddings endpoint for one
// vector per input. Vectors are placed by the index field of each item,
// never by array position, because the schema allows any order.
func (c *Client) Embed(ctx context.Context, req *EmbeddingRequest) (*EmbeddingResponse, error) {
	if req == nil || req.Model == "" {
		return nil, errorf("%s: embeddings need a model", c.name)
	}
	if len(req.Input) == 0 {
		return nil, errorf("%s: embeddings need at least one input", c.name)
	}
	body, err := json.Marshal(struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}{req.Model, req.Input, "float"})
	if err != nil {
		return nil, errorf("%s: encode embeddings request: %w", c.name, err)
	}
	data, err := c.post(ctx, req.Model, "embeddings", "application/json", body)
	if err != nil {
		return nil, err
	}
	var w struct {
		Data []struct {
			Index     *int            `json:"index"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
		Model string     `json:"model"`
		Usage *Usage     `json:"usage"`
		Error *wireError `json:"error"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, errorf("%s: decode embeddings: %w (body starts %q)", c.name, err, snippet(data, 120))
	}
	if w.Error != nil && len(w.Data) == 0 {
		return nil, bodyError(c.name, 200, w.Error)
	}
	out := &EmbeddingResponse{Vectors: make([][]float32, len(req.Input)), Model: w.Model}
	if w.Usage != nil {
		out.Usage = *w.Usage
	}
	for i, item := range w.Data {
		if item.Index == nil {
			return nil, errorf("%s: %w: item %d has no index", c.name, ErrEmbeddingIndex, i)
		}
		idx := *item.Index
		if idx < 0 || idx >= len(req.Input) {
			return nil, errorf("%s: %w: index %d is out of range for %d inputs", c.name, ErrEmbeddingIndex, idx, len(req.Input))
		}
		if out.Vectors[idx] != nil {
			return nil, errorf("%s: %w: index %d appears twice", c.name, ErrEmbeddingIndex, idx)
		}
		vec, err := decodeVector(item.Embedding)
		if err != nil {
			return nil, errorf("%s: embedding %d: %w", c.name, idx, err)
		}
		out.Vectors[idx] = vec
	}
	for i, v := range out.Vectors {
		if v == nil {
			return nil, errorf("%s: %w: no vector for input %d of %d", c.name, ErrEmbeddingIndex, i, len(req.Input))
		}
	}
	return out, nil
}

// decodeVector reads an embedding given as a JSON array of numbers or as
// base64 of little-endian float32 values.
func decodeVector(raw json.RawMessage) ([]float32, error) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, errorf("base64 vector: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, errorf("base64 vector of %d bytes is not whole float32 values", len(b))
		}
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return v, nil
	}
	var v []float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if len(v) == 0 {
		return nil, errors.New("empty vector")
	}
	return v, nil
}

// readLimited reads at most n bytes of r.
func readLimited(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}
