// Package configedit is the part of the configuration the model may see
// and change through its config tool: [SafeView], a copy of the settings
// with no credential field at all; [SafeKeys] and [ParseSafe], the few
// limits and presentation settings a conversation may change and the
// rule each value must meet; and [SetFileKey], which edits one key in the
// config file's own JSON, so environment overrides and resolved
// credentials are never written to disk.
package configedit
