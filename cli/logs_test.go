package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/internal/testwait"
)

func TestTailLines(t *testing.T) {
	dir := t.TempDir()
	var all []string
	var b strings.Builder
	// Long enough to span several 64 KiB read blocks.
	for i := 0; i < 5000; i++ {
		l := fmt.Sprintf(`{"msg":"line %04d","pad":"%s"}`, i, strings.Repeat("x", i%50))
		all = append(all, l)
		b.WriteString(l + "\n")
	}
	full := b.String()
	cases := []struct {
		name    string
		body    string
		n       int
		want    []string
		wantEnd int
	}{
		{"last 3", full, 3, all[4997:], len(full)},
		{"last 2000 across blocks", full, 2000, all[3000:], len(full)},
		{"more than there are", "a\nb\n", 10, []string{"a", "b"}, 4},
		{"partial last line is left for follow", "a\nb\npart", 5, []string{"a", "b"}, 4},
		{"none asked", full, 0, nil, len(full)},
		{"empty file", "", 5, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "log")
			write(t, path, c.body)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			lines, end, err := tailLines(f, c.n)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range lines {
				got = append(got, string(l))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") || len(got) != len(c.want) {
				t.Errorf("got %d lines (first %q), want %d", len(got), first(got), len(c.want))
			}
			if end != int64(c.wantEnd) {
				t.Errorf("end = %d, want %d", end, c.wantEnd)
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func TestLogLine(t *testing.T) {
	got := logLine([]byte(`{"time":"2026-03-10T12:00:00.5Z","level":"WARN","msg":"purge failed","err":"disk full","n":3}`))
	want := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC).Local().Format("2006-01-02 15:04:05") + ` WARN  purge failed  err="disk full" n=3`
	if got != want {
		t.Errorf("logLine = %q, want %q", got, want)
	}
	if got := logLine([]byte("plain \x1b[31mtext")); got != "plain text" {
		t.Errorf("non-JSON line = %q", got)
	}
}

// TestFollow appends to a log, then replaces it (rotation): every
// complete line is printed once, in order.
func TestFollow(t *testing.T) {
	old := logPoll
	logPoll = 5 * time.Millisecond
	defer func() { logPoll = old }()
	path := filepath.Join(t.TempDir(), "padd.log")
	write(t, path, "old\n")
	var mu sync.Mutex
	var got []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- follow(ctx, path, 4, func(l []byte) { mu.Lock(); got = append(got, string(l)); mu.Unlock() })
	}()
	waitFor := func(n int) {
		t.Helper()
		testwait.UntilOK(t, func() error {
			mu.Lock()
			defer mu.Unlock()
			if len(got) < n {
				return fmt.Errorf("follow printed %v, want %d lines", got, n)
			}
			return nil
		})
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(f, "one\ntw")
	waitFor(1) // follow has read the first write, half a line with it
	fmt.Fprint(f, "o\n")
	f.Close()
	waitFor(2)
	// Rotation: the file is renamed away and a new one starts.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	write(t, path, "three\n")
	waitFor(3)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "one,two,three" {
		t.Errorf("follow printed %q", got)
	}
}
