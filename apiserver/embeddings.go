package apiserver

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
)

type embeddingsRequest struct {
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
}

// inputs decodes input, a string or an array of strings, and applies the
// caps, all before any provider is dialled.
func (q *embeddingsRequest) inputs() ([]string, string) {
	var in []string
	var one string
	switch {
	case len(q.Input) == 0 || string(q.Input) == "null":
		return nil, "input is missing: send a string or an array of strings"
	case json.Unmarshal(q.Input, &one) == nil:
		in = []string{one}
	case json.Unmarshal(q.Input, &in) == nil:
	default:
		return nil, "input must be a string or an array of strings (token arrays are not supported)"
	}
	if len(in) == 0 {
		return nil, "input is an empty array: send at least one string"
	}
	if len(in) > MaxEmbeddingInputs {
		return nil, fmt.Sprintf("input has %d entries, over the limit of %d per request", len(in), MaxEmbeddingInputs)
	}
	for i, s := range in {
		if len(s) > MaxEmbeddingInputBytes {
			return nil, fmt.Sprintf("input[%d] is %d bytes, over the limit of %d KiB", i, len(s), MaxEmbeddingInputBytes>>10)
		}
		if s == "" {
			return nil, fmt.Sprintf("input[%d] is empty", i)
		}
	}
	return in, ""
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if s.embedder == nil {
		writeError(w, http.StatusNotImplemented, "not_implemented", withHint("embeddings are not configured", s.setup.Embedder))
		return
	}
	var req embeddingsRequest
	if !readJSON(w, r, &req) {
		return
	}
	format := req.EncodingFormat
	if format == "" {
		format = "float"
	}
	if format != "float" && format != "base64" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("encoding_format %q is not supported: use float or base64", req.EncodingFormat))
		return
	}
	in, problem := req.inputs()
	if problem != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", problem)
		return
	}
	res, err := s.embedder.Embed(r.Context(), in)
	if err == nil && (res == nil || len(res.Vectors) != len(in)) {
		got := 0
		if res != nil {
			got = len(res.Vectors)
		}
		err = &Error{Message: fmt.Sprintf("the embeddings provider returned %d vectors for %d inputs", got, len(in))}
	}
	if err != nil {
		if r.Context().Err() != nil {
			return
		}
		status, msg := s.failure(r, "the embeddings request", err)
		writeError(w, status, errorType(status), msg)
		return
	}
	data := make([]map[string]any, len(in))
	for i, v := range res.Vectors {
		var emb any = v
		if format == "base64" {
			emb = encodeFloats(v)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data":   data,
		"model":  ModelID,
		"usage":  map[string]int{"prompt_tokens": res.PromptTokens, "total_tokens": res.PromptTokens},
	})
}

// encodeFloats renders v as base64 of little-endian float32s, the form the
// OpenAI clients decode.
func encodeFloats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}
