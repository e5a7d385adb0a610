// Package memory is where joshbot keeps what it remembers.
//
// It has two halves. The session store ([Store]) keeps the conversation
// history of each chat on disk so that a restart does not forget it,
// together with a metadata sidecar ([Meta]) and, for sessions that were
// compacted, an append-only archive of every message the summary replaced
// ([Store.Compact]). Long-term memory ([LongTerm]) keeps facts that go into
// the prompt (MEMORY.md, shared by every session, and one fact file per
// scope for what was learned there: per session by default, per person
// with a scope resolver, [LongTermOptions].Scope), the append-only
// HISTORY.md event log
// with lexical search ([LongTerm.Search]), and the optional "dream" track
// that clusters recorded turns into insights ([LongTerm.ConsolidateDream]).
//
// The module is a leaf: it imports no other joshbot module, which is why it
// defines its own Message type instead of sharing one with the providers.
//
// # Quick start
//
//	store, err := memory.NewStore(filepath.Join(home, ".joshbot", "sessions"))
//	if err != nil {
//		return err
//	}
//	unlock, err := store.Lock(ctx, "telegram:12345") // one turn at a time per chat, across processes
//	if err != nil {
//		return err
//	}
//	defer unlock()
//	sess, err := store.Load("telegram:12345") // empty if new
//	if err != nil {
//		return err
//	}
//	sess.Messages = append(sess.Messages, memory.Message{
//		Role: "user", Content: "hello", Time: time.Now(),
//	})
//	// ... run the model, append its replies ...
//	if err := store.Save(sess); err != nil {
//		return err
//	}
//
// # Session keys
//
// A session is named by a key of the form "channel:sender", such as
// "telegram:12345" or "api:alice". Keys are checked by ValidateKey before
// they are turned into file names, and the mapping from key to file name is
// injective, also on case-insensitive file systems, so one chat can never
// read or overwrite another's history.
//
// # Storage format
//
// Each session is a JSONL file in the store's directory holding one Message
// per line, oldest first, and nothing else; metadata that is not part of the
// conversation belongs in separate files. The directory has mode 0700 and
// the files 0600. Save replaces a file atomically with a temporary file and
// a rename, so readers and crashes see either the old or the new session;
// a save that only adds messages to the file this Store last wrote or read
// appends them instead, and a crash in the middle leaves at most a torn
// last line, which Load skips (see Damaged files), so the old session.
//
// # Damaged files
//
// Load skips lines it cannot read, for example a last line torn by a power
// failure, and moves their exact bytes to a ".corrupt" file next to the
// session, logging one warning. The rest of the session loads normally.
//
// # Concurrency
//
// A Store is safe for concurrent use. Store.Lock serializes whole turns of
// one session within the process; Load, Save and Append are individually
// atomic and, on Unix, also locked against other processes, so two
// processes appending to one session keep both messages. A LongTerm is safe
// for concurrent use and locks its writes across processes in the same way.
//
// # Crash safety
//
// Nothing is acknowledged before it is on stable storage: session files are
// replaced by a synced temporary file, and the append-only files
// (history archives, HISTORY.md, the dream logs) are synced after each
// append; HISTORY.md entries added at once share one write and one sync,
// and none returns before it. Steps that move data from one file to another write the
// destination first (compaction archives before it shortens the session,
// dream consolidation stores insights before it drops the raw records), so
// a crash at any point costs at most a repeated step.
//
// Package [github.com/joshbot/joshbot/memory/atomicfile] is the durable
// rewrite behind it (temporary file in the same directory, file sync,
// rename, directory sync), which every joshbot module uses for the files
// it rewrites; it depends on nothing, so any module may import it.
package memory
