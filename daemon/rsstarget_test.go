package daemon

import (
	"bytes"
	"log/slog"
	"testing"
)

func TestRSSTargetFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		want int64
		warn bool
	}{
		{"", DefaultRSSTarget, false},
		{"140", 140 << 20, false},
		{" 64 ", 64 << 20, false},
		{"0", 0, false},
		{"off", 0, false},
		{"150MB", DefaultRSSTarget, true},
		{"-5", DefaultRSSTarget, true},
	} {
		t.Setenv("PADD_RSS_TARGET", c.env)
		var logs bytes.Buffer
		got := rssTargetFromEnv(slog.New(slog.NewTextHandler(&logs, nil)))
		if got != c.want || (logs.Len() > 0) != c.warn {
			t.Errorf("PADD_RSS_TARGET=%q: %d (logged %q); want %d, warning %v", c.env, got, logs.String(), c.want, c.warn)
		}
	}
}
