package daemon

import (
	"strings"
	"testing"
	"time"
)

func TestLimitsFromEnv(t *testing.T) {
	env := map[string]string{"PADD_BODY_TIMEOUT": "1s", "PADD_SSE_KEEPALIVE": "soon",
		"PAD_SSE_MAX_CONNECTIONS": "2", "PAD_SSE_MAX_PER_WORKSPACE": "-1", "PADD_SYNC_TIMEOUT": "5s"}
	l, warns := LimitsFromEnv(func(k string) string { return env[k] })
	d := DefaultLimits()
	if l.BodyTimeout != time.Second || l.SSEMaxTotal != 2 || l.SyncTimeout != 5*time.Second {
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
	sc := syncConfig(nil, Config{Limits: Limits{SyncTimeout: 5 * time.Second}}, nil)
	if sc.Client.Timeout != 5*time.Second || sc.Settle != 35*time.Second || sc.MaxBackoff != 0 {
		t.Errorf("syncConfig = timeout %v, settle %v, max backoff %v; want 5s, 35s and the engine's default", sc.Client.Timeout, sc.Settle, sc.MaxBackoff)
	}
}
