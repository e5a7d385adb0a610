package providers

import (
	"strings"
)

// DefaultContextWindow is the context window, in tokens, assumed for a
// model [ContextWindow] does not know. It is deliberately generous: a small
// guess makes a caller compact (or drop) a conversation that fits.
const DefaultContextWindow = 128_000

// contextWindows maps a model-id prefix to its window in tokens. The longest
// matching prefix wins, so specific entries may follow general ones.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-3.5-turbo", 16_385},
	{"gpt-4", 8_192},
	{"gpt-4-turbo", 128_000},
	{"gpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-5", 400_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"claude", 200_000},
	{"gemini-1.5-pro", 2_097_152},
	{"gemini-1.5-flash", 1_048_576},
	{"gemini-2", 1_048_576},
	{"gemini-3", 1_048_576},
	{"llama-3.1", 131_072},
	{"llama-3.2", 131_072},
	{"llama-3.3", 131_072},
	{"llama3.1", 131_072},
	{"llama3.2", 131_072},
	{"llama3.3", 131_072},
	{"llama-4", 131_072},
	{"mistral-large", 131_072},
	{"mixtral-8x7b", 32_768},
	{"deepseek-chat", 64_000},
	{"deepseek-r1", 64_000},
	{"qwen2.5", 32_768},
	{"qwen3", 40_960},
	{"gemma2", 8_192},
	{"gemma3", 131_072},
}

// ContextWindow returns the context window in tokens of model, given with
// or without a provider prefix ("anthropic/claude-sonnet-4-5" and
// "claude-sonnet-4-5" agree). Unknown models get [DefaultContextWindow].
func ContextWindow(model string) int {
	id := baseModelID(model)
	best, tokens := -1, DefaultContextWindow
	for _, e := range contextWindows {
		if strings.HasPrefix(id, e.prefix) && len(e.prefix) > best {
			best, tokens = len(e.prefix), e.tokens
		}
	}
	return tokens
}

// baseModelID reduces a model id to the vendor's own name for it:
// lower-cased, without any "provider/vendor/" path in front.
func baseModelID(model string) string {
	id := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return id
}

// Model families that read images. An id matches a prefix entry when it
// starts with it, and a substring entry when it contains it.
var (
	visionPrefixes = []string{
		"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-5", "o1", "o3", "o4-mini",
		"claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4",
		"gemini", "gemma3", "gemma-3", "llama-4", "llama4", "pixtral", "llava", "bakllava",
		"minicpm-v", "moondream", "grok-4", "mistral-small-3", "mistral-medium-3",
	}
	visionSubstrings = []string{"vision", "-vl", "qwen2.5vl", "qwen3vl"}
	// notVision lists ids inside a vision family that take text only.
	notVision = []string{"o1-mini", "o1-preview", "o3-mini", "gpt-4o-audio", "gpt-4o-realtime", "gpt-4o-mini-audio", "gpt-4o-mini-realtime"}

	documentPrefixes = []string{
		"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4-mini",
		"claude-3-5-sonnet", "claude-3.5-sonnet", "claude-3-7-sonnet", "claude-3.7-sonnet",
		"claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4",
		"gemini-1.5", "gemini-2", "gemini-3",
	}
)

// SupportsVision reports whether model is known to read images. Unknown
// models are reported as not reading them: sending an image to a text model
// fails mid-conversation with a provider error, so the safe answer for a
// model nobody listed is no.
func SupportsVision(model string) bool {
	id := baseModelID(model)
	for _, p := range notVision {
		if strings.HasPrefix(id, p) {
			return false
		}
	}
	for _, p := range visionPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	for _, s := range visionSubstrings {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// SupportsDocuments reports whether model is known to read PDF file parts.
// The list is narrower than [SupportsVision]'s: reading images does not
// imply parsing PDFs. Unknown models are reported as not reading them.
func SupportsDocuments(model string) bool {
	id := baseModelID(model)
	for _, p := range notVision {
		if strings.HasPrefix(id, p) {
			return false
		}
	}
	for _, p := range documentPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// screen checks req's attachments and reports which of models can take
// them, before anything is sent. It fails when none can; the error names
// every model by its label (labels[i] for models[i]) and key, the setting
// an operator changes to pick another model (empty means a generic hint).
func screen(req *Request, models, labels []string, key string) ([]bool, error) {
	images, docs, err := checkAttachments(req.Messages)
	if err != nil {
		return nil, err
	}
	ok := make([]bool, len(models))
	any := false
	for i, m := range models {
		ok[i] = (!images || SupportsVision(m)) && (!docs || SupportsDocuments(m))
		any = any || ok[i]
	}
	if any {
		return ok, nil
	}
	what := "images"
	switch {
	case images && docs:
		what = "images and PDF documents"
	case docs:
		what = "PDF documents"
	}
	if key == "" {
		key = "the model setting"
	}
	return nil, errorf("%w: this message carries %s, which none of the configured models is known to read (%s): set %s to a model that reads them (for example openai/gpt-4o or anthropic/claude-sonnet-4-5), or send the message without them",
		ErrAttachment, what, strings.Join(labels, ", "), key)
}
