package daemon

import (
	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

// The wire of the item timeline and the collections' progress reads.

func wireTimeline(p *views.TimelinePage) api.Timeline {
	out := api.Timeline{Entries: make([]api.TimelineEntry, 0, len(p.Entries)), HasMore: p.HasMore}
	for i := range p.Entries {
		e := &p.Entries[i]
		te := api.TimelineEntry{ID: e.ID, Kind: e.Kind, CreatedAt: e.CreatedAt, Actor: e.Actor.Kind,
			ActorName: e.Actor.Name, Source: e.Actor.Source}
		switch e.Kind {
		case views.TimelineComment:
			c := wireComment(e.Comment)
			c.Replies = wireReplies(e.Replies)
			te.Comment = &c
		case views.TimelineActivity:
			a := wireActivity(*e.Activity)
			te.Activity = &a
		case views.TimelineVersion:
			v := wireVersion(e.Version)
			te.Version = &v
		case views.TimelineNote:
			te.Note = e.Entry
		case views.TimelineDecision:
			te.Decision = e.Entry
		}
		out.Entries = append(out.Entries, te)
	}
	return out
}

func wireReplies(list []model.Comment) []api.Comment {
	if len(list) == 0 {
		return nil
	}
	return wireComments(list)
}
