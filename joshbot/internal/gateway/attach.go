package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/joshbot/joshbot/agent"
	"github.com/joshbot/joshbot/channels"
	"github.com/joshbot/joshbot/providers"
)

// gatewaySpoolDir is the media spool the channel adapters save inbound
// files into, and the only place the gateway reads them back from.
func gatewaySpoolDir(home string) string { return filepath.Join(home, "gateway", "spool") }

// errAttachmentTooLarge marks a spooled file over what the model accepts.
var errAttachmentTooLarge = errors.New("over the size limit")

// attachInbound loads inb's images and PDFs from the spool onto req. Each
// file is found again by its spool id alone: Attachment.Path came through
// the durable inbox and is never opened, so a record naming a path
// outside the spool reaches nothing. Kinds the model cannot take are
// skipped with a log line. A file that cannot be loaded makes the turn
// pointless (the user asked about it), so the answer is a reply for the
// user, and empty when the turn should run.
func (g *Gateway) attachInbound(req *agent.Request, spool string, inb *channels.Inbound) string {
	for _, att := range inb.Attachments {
		var limit int64
		what := "image"
		switch att.Kind {
		case channels.KindImage:
			limit = providers.MaxImageBytes
		case channels.KindPDF:
			limit, what = providers.MaxDocumentBytes, "PDF"
		default:
			g.log.Info("attachment ignored: the model takes images and PDFs only", "channel", inb.Channel, "kind", att.Kind, "id", att.ID())
			continue
		}
		data, err := readSpooled(spool, att.ID(), limit)
		switch {
		case errors.Is(err, errAttachmentTooLarge):
			return fmt.Sprintf("The %s you sent is larger than the %d MiB the model accepts, so I didn't pass it on. Please send a smaller one.", what, limit>>20)
		case err != nil:
			g.log.Warn("attachment not loaded from the spool", "channel", inb.Channel, "kind", att.Kind, "err", err)
			return fmt.Sprintf("I couldn't load the %s you sent, so I didn't answer without it. Please send it again.", what)
		}
		if att.Kind == channels.KindImage {
			req.Images = append(req.Images, providers.Image{Data: data})
		} else {
			req.Documents = append(req.Documents, providers.Document{Name: att.Name, Data: data})
		}
	}
	return ""
}

// readSpooled reads the spool file id, at most limit bytes. It reads one
// byte past the limit so a file that grew over it is refused, not cut.
func readSpooled(spool, id string, limit int64) ([]byte, error) {
	path, err := channels.ResolveSpoolID(spool, id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf("spool id %q: %w", id, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errorf("spool id %q: %w", id, err)
	}
	if int64(len(data)) > limit {
		return nil, errorf("spool id %q: %w", id, errAttachmentTooLarge)
	}
	return data, nil
}

// A spool file is removed when the last message carrying it has had its
// turn (the router does it); what is left, media of messages that were
// never accepted or of an earlier run, is swept at start and every
// spoolSweepEvery once older than spoolMaxAge. Files of messages still
// waiting in the durable inbox are kept whatever their age.
const (
	spoolMaxAge     = 24 * time.Hour
	spoolSweepEvery = time.Hour
)

// sweepSpool removes orphaned inbound media from the spool now and then
// until ctx ends.
func (g *Gateway) sweepSpool(ctx context.Context, router *channels.Router) {
	sweep := func(now time.Time) {
		n, err := router.SweepSpool(spoolMaxAge, now)
		if err != nil {
			g.log.Warn("spool sweep incomplete", "err", err)
		}
		if n > 0 {
			g.log.Info("spool swept", "removed", n, "older_than", spoolMaxAge.String())
		}
	}
	sweep(time.Now())
	t := time.NewTicker(spoolSweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			sweep(now)
		}
	}
}
