package remote

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// serverClock reads the server's clock off the Date header of its
// answers, so that padd can say when something happened by the server's
// clock alone: a time the server wrote (a created_at) is compared with
// another time of the server, never with the laptop's clock, which may
// be off by any amount.
type serverClock struct {
	mu   sync.Mutex
	date time.Time // the latest Date header read
	at   time.Time // when it was read, on padd's monotonic clock
}

func (s *serverClock) observe(h http.Header) {
	d, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return
	}
	s.mu.Lock()
	s.date, s.at = d, time.Now()
	s.mu.Unlock()
}

// ServerNow estimates the server's clock now: the latest Date header it
// sent plus the time elapsed since on padd's monotonic clock (which no
// change of the wall clock moves). Date has whole seconds, so this is
// up to a second (and the answer's trip) behind the server; zero when no
// answer carried a Date.
func (c *Client) ServerNow() time.Time {
	c.clock.mu.Lock()
	defer c.clock.mu.Unlock()
	if c.clock.date.IsZero() {
		return time.Time{}
	}
	return c.clock.date.Add(time.Since(c.clock.at))
}

// UserID answers the id of the user the token belongs to (GET
// /api/v1/auth/me), as the server writes it in a comment's user_id: it
// tells padd's own writes from a teammate's. "" when the server has no
// such route.
func (c *Client) UserID(ctx context.Context) (string, error) {
	var me struct {
		ID string `json:"id"`
	}
	if _, err := c.do(ctx, "GET", "/auth/me", nil, nil, &me); err != nil {
		if IsNotFound(err) {
			return "", nil
		}
		return "", err
	}
	return me.ID, nil
}
