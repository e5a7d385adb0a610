package telegram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	tele "gopkg.in/telebot.v3"

	"github.com/joshbot/joshbot/channels"
)

// Inbound caps. They mirror what the model side accepts (one image, one
// PDF), so an oversized file is refused from its declared size before any
// transfer instead of being downloaded and then rejected.
const (
	maxImageBytes = 5 << 20
	maxPDFBytes   = 8 << 20
	// maxInlineText is how much of a text document is put into the turn.
	maxInlineText = 64 << 10
)

// supportedList is what a refusal tells the user the bot can read.
const supportedList = "text files (.txt, .md, .csv, .json, source code), PDFs and photos"

var errTooLarge = errors.New("file over the size limit")

// readMedia turns m's media into turn text and spool attachments. reply,
// when set, is sent straight back (unsupported or refused media); body is
// what to deliver, empty when nothing should be. An error means a transient
// failure: the update is not acknowledged and comes back.
func (t *Telegram) readMedia(ctx context.Context, m *tele.Message, text string) (body string, atts []channels.Attachment, reply string, err error) {
	switch {
	case m.Voice != nil || m.Audio != nil:
		if t.opts.Transcriber != nil {
			return t.transcribe(ctx, m, text)
		}
		return framed("a voice note or audio file", text), nil, "I can't listen to audio yet. Please send your message as text.", nil
	case m.Video != nil || m.VideoNote != nil || m.Animation != nil:
		return framed("a video", text), nil, "I can't watch videos yet. Please describe what you need in text.", nil
	case m.Photo != nil:
		return t.readImage(ctx, &m.Photo.File, "image/jpeg", "photo.jpg", text)
	case m.Document != nil:
		return t.readDocument(ctx, m.Document, text)
	}
	return text, nil, "", nil
}

// framed wraps the caption of media the model cannot perceive so it knows
// what it is missing; no caption means nothing to deliver.
func framed(what, caption string) string {
	if strings.TrimSpace(caption) == "" {
		return ""
	}
	return fmt.Sprintf("[The user sent %s, which you cannot perceive. Its caption follows.]\n%s", what, caption)
}

func (t *Telegram) readImage(ctx context.Context, f *tele.File, mime, name, text string) (string, []channels.Attachment, string, error) {
	if t.opts.SpoolDir == "" {
		return framed("an image", text), nil, "I can't take images here: this gateway has no media spool configured.", nil
	}
	if f.FileSize > maxImageBytes {
		return framed("an image", text), nil, fmt.Sprintf("That image is %s; I can take images up to %s.", size(f.FileSize), size(maxImageBytes)), nil
	}
	att, reply, err := t.spool(ctx, f, maxImageBytes, mime, name)
	if err != nil || reply != "" {
		return framed("an image", text), nil, reply, err
	}
	if text == "" {
		text = "[The user sent an image.]"
	}
	return text, []channels.Attachment{att}, "", nil
}

func (t *Telegram) readDocument(ctx context.Context, d *tele.Document, text string) (string, []channels.Attachment, string, error) {
	name := d.FileName
	if name == "" {
		name = "document"
	}
	mime := strings.ToLower(d.MIME)
	switch docClass(name, mime) {
	case classImage:
		return t.readImage(ctx, &d.File, d.MIME, name, text)
	case classPDF:
		if t.opts.SpoolDir == "" {
			return framed("a PDF", text), nil, "I can't take PDFs here: this gateway has no media spool configured.", nil
		}
		if d.FileSize > maxPDFBytes {
			return framed("a PDF", text), nil, fmt.Sprintf("%s is %s; I can read PDFs up to %s.", name, size(d.FileSize), size(maxPDFBytes)), nil
		}
		att, reply, err := t.spool(ctx, &d.File, maxPDFBytes, "application/pdf", name)
		if err != nil || reply != "" {
			return framed("a PDF", text), nil, reply, err
		}
		if !isPDF(att.Path) {
			os.Remove(att.Path)
			return framed("a file", text), nil, fmt.Sprintf("%s is not a PDF by its content; I can read %s.", name, supportedList), nil
		}
		if text == "" {
			text = "[The user sent a PDF: " + name + "]"
		}
		return text, []channels.Attachment{att}, "", nil
	case classText:
		return t.inlineText(ctx, d, name, text)
	case classOffice:
		return framed("an Office document", text), nil, fmt.Sprintf("I can't read Word, Excel or PowerPoint files (%s). I can read %s: export it to one of those and send it again.", name, supportedList), nil
	}
	return framed("a file", text), nil, fmt.Sprintf("I can't read %s. I can read %s.", name, supportedList), nil
}

// inlineText puts a text document into the turn, at most maxInlineText
// bytes of it with a visible marker when cut, and refuses binary content
// whatever its name claims.
func (t *Telegram) inlineText(ctx context.Context, d *tele.Document, name, text string) (string, []channels.Attachment, string, error) {
	rc, reply, err := t.fetch(ctx, &d.File, -1)
	if err != nil || reply != "" {
		return framed("a file", text), nil, reply, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxInlineText+1))
	if err != nil {
		return "", nil, "", errorf("download %s: %w", name, err)
	}
	truncated := len(data) > maxInlineText
	if truncated {
		data = data[:maxInlineText]
		// Do not count a rune the cut split in two as binary.
		for i := 0; i < utf8.UTFMax && len(data) > 0 && !utf8.Valid(data); i++ {
			data = data[:len(data)-1]
		}
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return framed("a file", text), nil, fmt.Sprintf("%s looks binary, not text, so I can't read it. I can read %s.", name, supportedList), nil
	}
	var b strings.Builder
	if text != "" {
		b.WriteString(text)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "[Attached file %s]\n%s", name, data)
	if truncated {
		total := "more"
		if d.FileSize > 0 {
			total = size(d.FileSize)
		}
		fmt.Fprintf(&b, "\n[… truncated: only the first %s of %s (%s) is shown]", size(maxInlineText), name, total)
	}
	fmt.Fprintf(&b, "\n[End of %s]", name)
	return b.String(), nil, "", nil
}

func (t *Telegram) transcribe(ctx context.Context, m *tele.Message, text string) (string, []channels.Attachment, string, error) {
	f, name, mime := (*tele.File)(nil), "voice.ogg", "audio/ogg"
	if m.Voice != nil {
		f, mime = &m.Voice.File, m.Voice.MIME
	} else {
		f, name, mime = &m.Audio.File, m.Audio.FileName, m.Audio.MIME
	}
	if f.FileSize > channels.MaxAttachmentBytes {
		return framed("a voice note", text), nil, fmt.Sprintf("That recording is %s; I can transcribe up to %s.", size(f.FileSize), size(channels.MaxAttachmentBytes)), nil
	}
	rc, reply, err := t.fetch(ctx, f, channels.MaxAttachmentBytes)
	if err != nil || reply != "" {
		return framed("a voice note", text), nil, reply, err
	}
	defer rc.Close()
	got, err := t.opts.Transcriber.Transcribe(ctx, rc, name, mime)
	if err != nil {
		t.log.Warn("transcription failed", "err", err)
		return framed("a voice note", text), nil, "I couldn't transcribe that recording. Please send it as text.", nil
	}
	body := "[Voice note, transcribed]\n" + got
	if text != "" {
		body += "\n[Caption]\n" + text
	}
	return body, nil, "", nil
}

// spool downloads f (at most limit bytes) into the media spool.
func (t *Telegram) spool(ctx context.Context, f *tele.File, limit int64, mime, name string) (channels.Attachment, string, error) {
	rc, reply, err := t.fetch(ctx, f, limit)
	if err != nil || reply != "" {
		return channels.Attachment{}, reply, err
	}
	defer rc.Close()
	att, err := channels.SaveToSpool(t.opts.SpoolDir, rc, mime, name)
	switch {
	case errors.Is(err, errTooLarge) || errors.Is(err, channels.ErrTooLarge):
		return channels.Attachment{}, fmt.Sprintf("%s is larger than it claimed and over the %s limit, so I refused it.", name, size(limit)), nil
	case err != nil:
		return channels.Attachment{}, "", errorf("download %s: %w", name, err)
	}
	return att, "", nil
}

// fetch resolves f with getFile and opens its bytes, refusing from the
// declared size before any transfer. The body is read through a cap of
// limit bytes (negative means no cap; the caller limits its own read) so a
// size the platform under-declared is refused, never truncated. reply is
// set for a refusal the user should hear about; err for a transient
// failure worth a redelivery.
func (t *Telegram) fetch(ctx context.Context, f *tele.File, limit int64) (io.ReadCloser, string, error) {
	var info tele.File
	err := t.call(ctx, func() (err error) {
		info, err = t.bot.FileByID(f.FileID)
		return err
	})
	if err != nil {
		if errorCode(err) != 0 {
			return nil, "I couldn't fetch that file from Telegram (" + t.scrub(err) + ").", nil
		}
		return nil, "", errorf("getFile: %s", t.scrub(err))
	}
	if limit >= 0 && info.FileSize > limit {
		return nil, fmt.Sprintf("That file is %s; the limit is %s.", size(info.FileSize), size(limit)), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.base+"/file/bot"+t.opts.Token+"/"+info.FilePath, nil)
	if err != nil {
		return nil, "", err
	}
	client := &http.Client{Timeout: t.opts.HTTPTimeout}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", errorf("download: %s", t.scrub(err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			return nil, "", errorf("download: %s", resp.Status)
		}
		return nil, "I couldn't fetch that file from Telegram (" + resp.Status + ").", nil
	}
	if limit < 0 {
		return resp.Body, "", nil
	}
	return &capReader{rc: resp.Body, left: limit}, "", nil
}

// capReader fails with errTooLarge once more than left bytes arrive.
type capReader struct {
	rc   io.ReadCloser
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, errTooLarge
	}
	return n, err
}

func (c *capReader) Close() error { return c.rc.Close() }

type docKind int

const (
	classOther docKind = iota
	classImage
	classPDF
	classText
	classOffice
)

// docClass sorts a document by its name and declared type. It decides only
// which path to try: the bytes still decide in the end (PDF magic, binary
// check).
func docClass(name, mime string) docKind {
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case mime == "application/pdf" || ext == ".pdf":
		return classPDF
	case strings.HasPrefix(mime, "image/") && ext != ".svg":
		return classImage
	case strings.Contains(mime, "officedocument") || strings.Contains(mime, "msword") ||
		strings.Contains(mime, "ms-excel") || strings.Contains(mime, "ms-powerpoint") ||
		strings.Contains(mime, "opendocument"):
		return classOffice
	}
	switch ext {
	case ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp", ".rtf":
		return classOffice
	case ".txt", ".md", ".markdown", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml", ".toml",
		".ini", ".xml", ".log", ".go", ".py", ".js", ".ts", ".tsx", ".jsx", ".rs", ".c", ".h",
		".cc", ".cpp", ".hpp", ".java", ".kt", ".rb", ".php", ".sh", ".bash", ".zsh", ".sql",
		".html", ".css", ".swift", ".lua", ".pl", ".r", ".diff", ".patch", ".env", ".cfg", ".conf":
		return classText
	}
	if strings.HasPrefix(mime, "text/") || mime == "application/json" || mime == "application/x-yaml" {
		return classText
	}
	return classOther
}

func isPDF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 5)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "%PDF-"
}

// size renders a byte count for a person.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
