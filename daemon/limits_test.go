package daemon

import (
	"strings"
	"testing"
	"time"
)

func TestLimitsFromEnv(t *testing.T) {
	env := map[string]string{"PADD_BODY_TIMEOUT": "1s", "PADD_SSE_KEEPALIVE": "soon",
		"PAD_SSE_MAX_CONNECTIONS": "2", "PAD_SSE_MAX_PER_WORKSPACE": "-1"}
	l, warns := LimitsFromEnv(func(k string) string { return env[k] })
	d := DefaultLimits()
	if l.BodyTimeout != time.Second || l.SSEMaxTotal != 2 {
		t.Errorf("the good values were not taken: %+v", l)
	}
	if l.SSEKeepalive != d.SSEKeepalive || l.SSEMaxPerWorkspace != d.SSEMaxPerWorkspace {
		t.Errorf("the bad values did not keep their defaults: %+v", l)
	}
	if len(warns) != 2 || !strings.Contains(strings.Join(warns, "\n"), "PADD_SSE_KEEPALIVE") ||
		!strings.Contains(strings.Join(warns, "\n"), "PAD_SSE_MAX_PER_WORKSPACE") {
		t.Errorf("warnings = %q, want one for each bad value", warns)
	}
	if got := (Limits{SSEMaxTotal: 3}).orDefaults(); got.SSEMaxTotal != 3 || got.BodyTimeout != d.BodyTimeout {
		t.Errorf("orDefaults = %+v", got)
	}
}
