package records

import (
	"time"

	"github.com/padd/padd/model"
)

// SeenKey is whose seen cursor: the user's, or one agent's (an agent
// catching up should not move the user's cursor, nor another agent's).
func SeenKey(caller model.Actor) []byte {
	if caller.Kind == model.ActorAgent {
		return Lstr("agent:" + caller.Name)
	}
	return Lstr(model.ActorUser)
}

func ReadSeen(b *Wsb, caller model.Actor) *time.Time {
	raw := b.Seen().Get(SeenKey(caller))
	if len(raw) != 8 {
		return nil
	}
	t := time.Unix(int64(GetU64(raw)), 0).UTC()
	return &t
}
