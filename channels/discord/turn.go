package discord

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/joshbot/joshbot/channels"
)

// typingEvery is how often the typing indicator is renewed; Discord shows
// it for about ten seconds.
const typingEvery = 8 * time.Second

// Typing implements [channels.TypingIndicator]: it shows "typing…" in
// conversation until the returned stop is called or ctx ends, renewing it
// every eight seconds. stop is idempotent and
// waits for the keep-alive to end. Failures are logged at debug: an
// indicator is never worth failing a turn over.
func (d *Discord) Typing(ctx context.Context, conversation string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(typingEvery)
		defer t.Stop()
		for {
			if err := d.s.ChannelTyping(conversation, discordgo.WithContext(ctx)); err != nil && ctx.Err() == nil {
				d.log.Debug("typing indicator not sent", "err", d.scrub(err))
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
		})
	}
}

// Command is one entry of the command menu.
//
// Deprecated: use [channels.Command]; this is the same type under its old
// name.
type Command = channels.Command

// maxDescription is the longest command description Discord takes.
const maxDescription = 100

var reCommand = &lazyRegexp{expr: `^[a-z0-9_-]{1,32}$`}

// argsOption is the one free-text option every command takes, so
// "/model gpt-5" can be written as the slash command model with args
// "gpt-5".
const argsOption = "args"

// SetCommands implements [channels.CommandMenu]: it publishes menu as the
// bot's global application commands, so Discord lists them under "/". The
// whole list is checked first; a name Discord would refuse (1-32 lowercase
// letters, digits, _ or -) or an empty description is an error naming it,
// and nothing is sent. A description over 100 characters is shortened to
// fit, ending with "…". Publishing needs the application id, which
// arrives with the gateway's READY: before that the menu is kept and
// published once the gateway connects (a failure then is logged).
func (d *Discord) SetCommands(ctx context.Context, menu []channels.Command) error {
	cmds := make([]*discordgo.ApplicationCommand, 0, len(menu))
	for i, c := range menu {
		if !reCommand.get().MatchString(c.Name) {
			return errorf("discord: command %d %q must be 1-32 lowercase letters, digits, _ or -", i, c.Name)
		}
		if strings.TrimSpace(c.Description) == "" {
			return errorf("discord: command %q needs a description", c.Name)
		}
		cmds = append(cmds, &discordgo.ApplicationCommand{
			Name:        c.Name,
			Description: shorten(c.Description, maxDescription),
			Options: []*discordgo.ApplicationCommandOption{{
				Type: discordgo.ApplicationCommandOptionString, Name: argsOption,
				Description: "arguments, as you would type them after the command",
			}},
		})
	}
	d.mu.Lock()
	app := d.appID
	if app == "" {
		d.menu = &keptMenu{cmds: cmds}
	}
	d.mu.Unlock()
	if app == "" {
		return nil
	}
	return d.publish(ctx, app, cmds)
}

// publish overwrites the application's global commands with cmds.
func (d *Discord) publish(ctx context.Context, app string, cmds []*discordgo.ApplicationCommand) error {
	if _, err := d.s.ApplicationCommandBulkOverwrite(app, "", cmds, discordgo.WithContext(ctx)); err != nil {
		return errorf("discord: publish commands: %s", d.scrub(err))
	}
	return nil
}

// publishPending publishes a menu SetCommands kept before the application
// id was known. It runs when READY arrives; a failure keeps the menu for
// the next READY.
func (d *Discord) publishPending(ctx context.Context) {
	d.mu.Lock()
	app, kept := d.appID, d.menu
	d.mu.Unlock()
	if app == "" || kept == nil {
		return
	}
	if err := d.publish(ctx, app, kept.cmds); err != nil {
		d.log.Warn("command menu not published", "err", err)
		return
	}
	d.mu.Lock()
	if d.menu == kept { // not replaced by a newer SetCommands meanwhile
		d.menu = nil
	}
	d.mu.Unlock()
}

// keptMenu is a menu SetCommands received before it could publish.
type keptMenu struct {
	cmds []*discordgo.ApplicationCommand
}

// shorten returns s cut to at most n runes, ending with "…" when cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// onInteraction turns a slash command into the same text a typed command
// would be. Discord wants an answer to an interaction within three
// seconds and never sends it again, so it is answered once Deliver
// returned: with the command echoed in the channel, or with a note only
// the user sees.
func (d *Discord) onInteraction(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
	sink, ctx := d.running()
	if sink == nil || ic.Interaction == nil || ic.Type != discordgo.InteractionApplicationCommand {
		return
	}
	user := ic.User
	if ic.Member != nil && ic.Member.User != nil {
		user = ic.Member.User
	}
	if user == nil || user.Bot {
		return
	}
	data := ic.ApplicationCommandData()
	text := "/" + data.Name
	for _, o := range data.Options {
		if o.Name == argsOption && o.Type == discordgo.ApplicationCommandOptionString {
			if a := strings.TrimSpace(o.StringValue()); a != "" {
				text += " " + a
			}
		}
	}
	who, allowed := principal(sink, user)
	inb := channels.Inbound{
		Channel:      Name,
		Conversation: ic.ChannelID,
		Principal:    who,
		MessageID:    ic.ID,
		IsDirect:     ic.GuildID == "",
		Mentioned:    true, // a command addressed to this application
		Text:         text,
	}
	err := sink.Deliver(ctx, inb)
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: text, AllowedMentions: noMentions}}
	switch {
	case !allowed:
		resp.Data = &discordgo.InteractionResponseData{Content: "This bot does not take commands from you.", Flags: discordgo.MessageFlagsEphemeral}
	case err != nil:
		d.log.Warn("command not delivered", "err", d.scrub(err))
		resp.Data = &discordgo.InteractionResponseData{Content: "I could not take that command just now; please try again.", Flags: discordgo.MessageFlagsEphemeral}
	}
	if err := d.s.InteractionRespond(ic.Interaction, resp, discordgo.WithContext(ctx)); err != nil {
		d.log.Debug("interaction not answered", "err", d.scrub(err))
	}
}
