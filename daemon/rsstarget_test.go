package daemon

import (
	"bytes"
	"log/slog"
	"testing"
)

func TestRSSTargetFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int64 // -1: the default
		warn bool
	}{
		{"", -1, false},
		{"140", 140 << 20, false},
		{" 64 ", 64 << 20, false},
		{"0", 0, false},
		{"off", 0, false},
		{"150MB", -1, true},
		{"-5", -1, true},
	} {
		t.Setenv("PADD_RSS_TARGET", c.env)
		for _, exact := range []bool{true, false} {
			want := c.want
			if want == -1 {
				want = DefaultRSSTarget
				if !exact {
					want = DefaultRSSTargetAround
				}
			}
			var logs bytes.Buffer
			got := rssTargetFromEnv(slog.New(slog.NewTextHandler(&logs, nil)), exact)
			if got != want || (logs.Len() > 0) != c.warn {
				t.Errorf("PADD_RSS_TARGET=%q, mapped exactly %v: %d (logged %q); want %d, warning %v", c.env, exact, got, logs.String(), want, c.warn)
			}
		}
	}
}
