package tools

import "context"

type sessionKeyKey struct{}

// WithSessionKey returns a context that tells tools which conversation
// ("channel:sender") the call belongs to. The agent sets it for every turn;
// tools that read or write per-conversation state use it to stay inside
// that conversation, since one Tool value serves every conversation at once.
func WithSessionKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, sessionKeyKey{}, key)
}

// SessionKeyFromContext returns the key set by [WithSessionKey], or "" when
// the call belongs to no conversation.
func SessionKeyFromContext(ctx context.Context) string {
	k, _ := ctx.Value(sessionKeyKey{}).(string)
	return k
}
