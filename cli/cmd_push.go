package cli

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/padd/padd/api"
)

// Push (Pad's `pad push <ref> -m message`): an instruction bound to an
// item, sent to the user's own armed sessions, the agent monitors
// (`pad watch --stream --for-session` with [push] auto_arm, or `padctl
// watch --all-workspaces --armed`). padd keeps no copy: a session that
// is not listening never hears it.

// ItemPushCmd is `item push <ref> <message>`.
type ItemPushCmd struct {
	Ref     string   `arg:"" help:"Item ref (TASK-5), slug or id."`
	Message []string `arg:"" help:"The instruction (the words are joined; white space becomes single spaces; at most 4,096 characters)."`
}

// Run pushes the message.
func (c *ItemPushCmd) Run(ctx context.Context, a *App) error {
	msg := strings.Join(strings.Fields(strings.Join(c.Message, " ")), " ")
	if msg == "" {
		return usagef(codeBadField, `write the instruction, e.g. padctl item push TASK-5 "review the plan"`, "the message is empty")
	}
	if n := utf8.RuneCountInString(msg); n > api.MaxPushMessage {
		return usagef(codeBadField, "shorten it, or put the detail in the item and push a pointer to it",
			"the message is %d characters; the most is %d", n, api.MaxPushMessage)
	}
	cl, ws, err := a.inWorkspace(ctx)
	if err != nil {
		return err
	}
	res, err := cl.Push(ctx, ws, c.Ref, msg, "")
	var ae *api.Error
	if errors.As(err, &ae) && ae.Code == api.CodePushUnconfirmed {
		return &Error{Code: ae.Code, Message: ae.Message, Exit: ExitError, Err: err,
			Hint: "check your agent session before pushing again: sending twice delivers twice"}
	}
	if err != nil {
		return err
	}
	return a.emitLine(lineView{res, func(st Style) string {
		ref := bold(st, firstNonEmpty(res.Ref, c.Ref))
		switch n := res.DeliveredSessions; {
		case n == nil:
			return "Pushed " + ref
		case *n == 0:
			return "Pushed " + ref + ", but no armed session was listening: nobody had it"
		case *n == 1:
			return "Pushed " + ref + " to 1 session"
		default:
			return "Pushed " + ref + " to " + strconv.Itoa(*n) + " sessions"
		}
	}})
}

// pushSeen remembers the push ids a watcher printed, so that a push
// heard twice (a reconnect, two deliveries) prints once: Pad's watcher
// keeps about the last 256 for 10 minutes.
type pushSeen struct {
	ids []string
	at  map[string]time.Time
}

const (
	pushSeenMax = 256
	pushSeenFor = 10 * time.Minute
)

// first records id and says whether it is new.
func (p *pushSeen) first(id string, now time.Time) bool {
	if p.at == nil {
		p.at = map[string]time.Time{}
	}
	if at, ok := p.at[id]; ok && now.Sub(at) < pushSeenFor {
		return false
	}
	if _, ok := p.at[id]; !ok {
		if len(p.ids) == pushSeenMax {
			delete(p.at, p.ids[0])
			p.ids = p.ids[1:]
		}
		p.ids = append(p.ids, id)
	}
	p.at[id] = now
	return true
}
