// Package configmigrate upgrades a config file written for an older
// schema_version to the layout this build reads: [Steps] is the table of
// upgrade steps, one per version, and [Upgrade] applies them in order to
// the file's JSON before internal/config decodes it. Every error it
// returns means the file cannot be read by this build; internal/config
// treats it as fatal, never papering over it with defaults.
package configmigrate
