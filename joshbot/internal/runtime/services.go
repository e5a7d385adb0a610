package runtime

import (
	"context"
	"errors"
	"io"

	"github.com/joshbot/joshbot/apiserver"
	"github.com/joshbot/joshbot/joshbot/internal/config"
	"github.com/joshbot/joshbot/providers"
)

// serviceClient dials the provider behind stt or embeddings, reusing that
// provider's key, endpoint and timeout.
func serviceClient(rm *config.ResolvedModel) (*providers.Client, error) {
	c, err := providers.NewClient(&providers.ClientOptions{
		Name:       rm.Provider,
		BaseURL:    rm.BaseURL,
		APIKey:     rm.APIKey,
		Timeout:    rm.Timeout,
		AuthHeader: rm.AuthHeader,
		Style:      rm.Style,
		Headers:    rm.Headers,
	})
	if err != nil {
		return nil, errorf("%s: %w", rm.Key, err)
	}
	return c, nil
}

// transcriber adapts the providers client to apiserver.Transcriber.
type transcriber struct {
	client     *providers.Client
	model      string
	timeoutKey string
}

// Transcribe implements apiserver.Transcriber.
func (t transcriber) Transcribe(ctx context.Context, audio *apiserver.Audio) (string, error) {
	text, err := t.client.Transcribe(ctx, &providers.TranscriptionRequest{Model: t.model, Audio: audio.Data})
	return text, withTimeoutKey(err, t.timeoutKey)
}

// embedder adapts the providers client to apiserver.Embedder.
type embedder struct {
	client     *providers.Client
	model      string
	timeoutKey string
}

// Embed implements apiserver.Embedder.
func (e embedder) Embed(ctx context.Context, inputs []string) (*apiserver.Embeddings, error) {
	res, err := e.client.Embed(ctx, &providers.EmbeddingRequest{Model: e.model, Input: inputs})
	if err != nil {
		return nil, withTimeoutKey(err, e.timeoutKey)
	}
	return &apiserver.Embeddings{Vectors: res.Vectors, PromptTokens: res.Usage.PromptTokens}, nil
}

// Services resolves the optional stt and embeddings blocks of cfg. A block that is
// absent leaves its route answering 501; a broken one is a start-up error,
// not a failure at the first request.
func Services(cfg *config.Config) (apiserver.Transcriber, apiserver.Embedder, error) {
	var tr apiserver.Transcriber
	var em apiserver.Embedder
	if rm, err := cfg.ResolveSTT(); err == nil {
		c, err := serviceClient(rm)
		if err != nil {
			return nil, nil, err
		}
		tr = transcriber{client: c, model: rm.WireModel, timeoutKey: rm.TimeoutKey}
	} else if !errors.Is(err, config.ErrNotConfigured) {
		return nil, nil, err
	}
	if rm, err := cfg.ResolveEmbeddings(); err == nil {
		c, err := serviceClient(rm)
		if err != nil {
			return nil, nil, err
		}
		em = embedder{client: c, model: rm.WireModel, timeoutKey: rm.TimeoutKey}
	} else if !errors.Is(err, config.ErrNotConfigured) {
		return nil, nil, err
	}
	return tr, em, nil
}

// VoiceTranscriber adapts the stt client to a chat adapter (Telegram),
// which hands over the bytes it downloaded.
type VoiceTranscriber struct {
	// T is the stt client [Services] returned.
	T apiserver.Transcriber
}

// Transcribe reads audio, at most providers.MaxAudioBytes, and transcribes
// it.
func (v VoiceTranscriber) Transcribe(ctx context.Context, audio io.Reader, _, _ string) (string, error) {
	data, err := io.ReadAll(io.LimitReader(audio, providers.MaxAudioBytes+1))
	if err != nil {
		return "", err
	}
	return v.T.Transcribe(ctx, &apiserver.Audio{Data: data})
}
