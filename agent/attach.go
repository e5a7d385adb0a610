package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/joshbot/joshbot/memory"
	"github.com/joshbot/joshbot/providers"
)

// Attachments travel with exactly one turn. The user message of that turn
// carries the bytes to the provider; the session keeps only a
// memory.AttachmentRef per file, and every later turn shows the model a
// one-line note in its place. Resending the bytes from history would bill
// them again on every turn inside the memory window, and a session file is
// not the place for a photo.

// attachmentRefs checks req's images and documents by their bytes and
// sizes, before anything is stored or sent, and returns the references the
// session keeps. The limits are the providers module's, so a file refused
// here would have been refused there too, only later and with a message
// about "message 7" the user never numbered.
func attachmentRefs(req *Request) ([]memory.AttachmentRef, error) {
	if len(req.Images) == 0 && len(req.Documents) == 0 {
		return nil, nil
	}
	refs := make([]memory.AttachmentRef, 0, len(req.Images)+len(req.Documents))
	total := 0
	for i := range req.Images {
		d := req.Images[i].Data
		mt := providers.SniffImage(d)
		if mt == "" {
			return nil, errorf("%w: %s is not a PNG, JPEG, GIF or WebP image by its content", providers.ErrAttachment, ordinal("image", i, len(req.Images)))
		}
		if len(d) > providers.MaxImageBytes {
			return nil, errorf("%w: %s is %s, over the %s limit per image", providers.ErrAttachment, ordinal("image", i, len(req.Images)), byteSize(len(d)), byteSize(providers.MaxImageBytes))
		}
		total += len(d)
		refs = append(refs, newRef(memory.AttachmentImage, mt, "", d))
	}
	if total > providers.MaxImageRequestBytes {
		return nil, errorf("%w: the images total %s, over the %s limit per message", providers.ErrAttachment, byteSize(total), byteSize(providers.MaxImageRequestBytes))
	}
	total = 0
	for i := range req.Documents {
		doc := &req.Documents[i]
		if !providers.IsPDF(doc.Data) {
			return nil, errorf("%w: %s is not a PDF by its content; PDF is the only document type the model can read", providers.ErrAttachment, docLabel(doc))
		}
		if len(doc.Data) > providers.MaxDocumentBytes {
			return nil, errorf("%w: %s is %s, over the %s limit per document", providers.ErrAttachment, docLabel(doc), byteSize(len(doc.Data)), byteSize(providers.MaxDocumentBytes))
		}
		total += len(doc.Data)
		refs = append(refs, newRef(memory.AttachmentPDF, "application/pdf", doc.Name, doc.Data))
	}
	if total > providers.MaxDocumentRequestBytes {
		return nil, errorf("%w: the documents total %s, over the %s limit per message", providers.ErrAttachment, byteSize(total), byteSize(providers.MaxDocumentRequestBytes))
	}
	return refs, nil
}

func newRef(kind, mediaType, label string, data []byte) memory.AttachmentRef {
	sum := sha256.Sum256(data)
	return memory.AttachmentRef{Kind: kind, Type: mediaType, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Label: label}
}

func ordinal(what string, i, n int) string {
	if n == 1 {
		return "the " + what
	}
	return fmt.Sprintf("%s %d of %d", what, i+1, n)
}

func docLabel(d *providers.Document) string {
	if d.Name == "" {
		return "the document"
	}
	return fmt.Sprintf("%q", d.Name)
}

// refNotes appends to content one line per attachment a stored message
// carried, so a later turn knows something was there without the bytes
// being sent again.
func refNotes(content string, refs []memory.AttachmentRef) string {
	if len(refs) == 0 {
		return content
	}
	var b strings.Builder
	b.WriteString(content)
	for i := range refs {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(refNote(&refs[i]))
	}
	return b.String()
}

// refNote is the line that stands in for one stored attachment, such as
// "[image: png, 120 KiB, sha256 1a2b3c4d5e6f; sent in an earlier turn, not
// included again]".
func refNote(r *memory.AttachmentRef) string {
	kind := r.Kind
	if kind == "" {
		kind = "attachment"
	}
	var b strings.Builder
	b.WriteString("[" + kind + ": ")
	if r.Label != "" {
		fmt.Fprintf(&b, "%q, ", r.Label)
	}
	if _, sub, ok := strings.Cut(r.Type, "/"); ok && r.Kind == memory.AttachmentImage {
		b.WriteString(sub + ", ")
	}
	b.WriteString(byteSize(int(r.Size)))
	if len(r.SHA256) >= 12 {
		b.WriteString(", sha256 " + r.SHA256[:12])
	}
	b.WriteString("; sent in an earlier turn, not included again]")
	return b.String()
}

// currentAttachments puts this turn's attachments on the last of msgs,
// the user message the turn began with, replacing the notes its stored
// references produced with the bytes themselves. stored is that message
// as the session holds it.
func (t *turn) currentAttachments(msgs []providers.Message, stored *memory.Message) {
	if len(t.images) == 0 && len(t.documents) == 0 {
		return
	}
	last := &msgs[len(msgs)-1]
	if last.Role != providers.RoleUser || len(stored.Attachments) != len(t.images)+len(t.documents) {
		// Process appends the user message last and nothing runs between
		// that and the loop that could move it; reaching here is a bug,
		// and sending the bytes on some other message would be worse
		// than the notes.
		t.a.log.Error("the turn's attachments were not sent: its user message is not the last one")
		return
	}
	last.Content = stored.Content
	last.Images = t.images
	last.Documents = t.documents
}

// attachmentRefusal is the reply for a turn whose attachments were
// refused, by their bytes here or by the provider's screening of the
// models that would read them. The error's own text names the models and
// the setting to change; it is kept whole rather than cut to one short
// line, because the part that gets cut is the part that says what to do.
func (t *turn) attachmentRefusal(err error) string {
	detail := strings.Join(strings.Fields(err.Error()), " ")
	if _, rest, ok := strings.Cut(detail, providers.ErrAttachment.Error()+": "); ok {
		detail = rest
	}
	text := "I can't pass your attachment on: " + detail + "."
	if t.model != "" && t.model != t.a.model {
		text += fmt.Sprintf(" This conversation uses the model %s; /model <name> switches it.", t.model)
	}
	return text
}

// refusedAttachments answers a request whose attachments failed
// attachmentRefs; nothing was stored and nothing was sent.
func refusedAttachments(err error) *Reply {
	detail := err.Error()
	if _, rest, ok := strings.Cut(detail, providers.ErrAttachment.Error()+": "); ok {
		detail = rest
	}
	return &Reply{Text: "I can't pass your attachment on: " + detail + ". Nothing was sent to the model; send it again as a photo (PNG, JPEG, GIF or WebP) or a PDF within the limits, or without it."}
}

// byteSize renders n bytes for a person: "512 B", "120 KiB", "5.0 MiB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
