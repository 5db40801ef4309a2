package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/padd/padd/internal/launch"
	"github.com/padd/padd/userservice"
)

// DaemonLogsCmd is `daemon logs`.
type DaemonLogsCmd struct {
	Follow bool `short:"f" help:"Keep printing new lines as padd writes them (Ctrl-C stops)."`
	Lines  int  `short:"n" default:"50" help:"Print the last N lines first (0: none)."`
}

// logPoll is how often --follow looks for new lines.
var logPoll = 200 * time.Millisecond

// Run prints the tail of padd's log: journald's when systemd runs padd
// (journalctl's short-iso lines, or its JSON export with --format json),
// else padd.log. padd logs JSON lines; for people they
// are laid out as "time LEVEL message key=value ...", with --format json
// they are printed as padd wrote them (one JSON object per line).
func (c *DaemonLogsCmd) Run(ctx context.Context, a *App) error {
	if c.Lines < 0 {
		return usagef(codeBadLines, "give --lines 0 or more", "--lines %d is negative", c.Lines)
	}
	dir, err := launch.DataDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, launch.LogFile)
	if h := a.journalHost(ctx, dir); h != nil {
		err := h.Logs(ctx, a.out, c.Lines, c.Follow, a.format == FormatJSON)
		if err == nil || ctx.Err() != nil {
			return nil
		}
		a.notef("cannot read padd's journal (%v); reading %s instead", err, path)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && !c.Follow {
		hint := "padd writes it once it has started: `padctl daemon start`"
		if b, _ := os.ReadFile(filepath.Join(dir, launch.StartErrFile)); len(bytes.TrimSpace(b)) > 0 {
			hint = fmt.Sprintf("padd failed before opening its log; its last words: %s", strings.TrimSpace(string(b)))
		}
		return failf(codeNoLog, hint, "no log at %s", path)
	}
	print := func(line []byte) {
		if a.format == FormatJSON {
			fmt.Fprintf(a.out, "%s\n", line)
		} else {
			fmt.Fprintln(a.out, logLine(line))
		}
	}
	var offset int64
	if err == nil {
		lines, end, err := tailLines(f, c.Lines)
		f.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		for _, l := range lines {
			print(l)
		}
		offset = end
	}
	if !c.Follow {
		return nil
	}
	return follow(ctx, path, offset, print)
}

// journalHost is the host whose journal holds padd's log: systemd runs
// padd (which then logs to stderr, into journald), or would run it and
// no other padd runs. nil means padd.log.
func (a *App) journalHost(ctx context.Context, dir string) *userservice.Host {
	h, st, err := a.serviceQuery(ctx)
	if err != nil || !st.Installed || st.Manager != userservice.SystemdUser {
		return nil
	}
	if info, err := launch.ReadInfo(dir); err == nil && launch.ProcessAlive(info.PID) && info.PID != st.PID {
		return nil // a padd systemd did not start: it logs to its file
	}
	return h
}

// tailLines returns the last n complete lines of f and the offset just
// past them, reading backwards in blocks so a large log costs little.
func tailLines(f *os.File, n int) ([][]byte, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	end := fi.Size()
	if n == 0 || end == 0 {
		return nil, end, nil
	}
	const block = 64 << 10
	var buf []byte
	pos := end
	for pos > 0 && bytes.Count(buf, []byte{'\n'}) <= n {
		step := int64(block)
		if pos < step {
			step = pos
		}
		pos -= step
		chunk := make([]byte, step)
		if _, err := f.ReadAt(chunk, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		buf = append(chunk, buf...)
	}
	// A trailing partial line (padd mid-write) is left for --follow.
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		end -= int64(len(buf) - i - 1)
		buf = buf[:i]
	} else {
		return nil, pos, nil
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if pos > 0 {
		lines = lines[1:] // the first piece may be the tail of a longer line
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, end, nil
}

// follow prints lines appended to path from offset until ctx ends. A log
// that shrinks or is replaced (rotation) is read again from its start.
func follow(ctx context.Context, path string, offset int64, print func([]byte)) error {
	var f *os.File
	var fi os.FileInfo
	var pending []byte
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	for {
		cur, err := os.Stat(path)
		switch {
		case err != nil:
			// Not there (yet, or mid-rotation): wait.
		case f == nil || !os.SameFile(fi, cur) || cur.Size() < offset:
			if f != nil {
				f.Close()
				offset, pending = 0, nil
			}
			if f, err = os.Open(path); err != nil {
				f = nil
				break
			}
			fi = cur
			fallthrough
		default:
			if f != nil && cur.Size() > offset {
				r := bufio.NewReader(io.NewSectionReader(f, offset, cur.Size()-offset))
				data, _ := io.ReadAll(r)
				offset += int64(len(data))
				pending = append(pending, data...)
				for {
					i := bytes.IndexByte(pending, '\n')
					if i < 0 {
						break
					}
					print(pending[:i])
					pending = pending[i+1:]
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil // Ctrl-C is how --follow ends
		case <-time.After(logPoll):
		}
	}
}

// logLine lays one of padd's JSON log lines out for people; a line that
// is not JSON is printed as it is.
func logLine(line []byte) string {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return clean(string(line))
	}
	var ts, level, msg string
	var rest []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return clean(string(line))
		}
		key, _ := kt.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return clean(string(line))
		}
		var s string
		isStr := json.Unmarshal(v, &s) == nil
		if !isStr {
			s = string(v)
		}
		switch key {
		case "time":
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				s = t.Local().Format("2006-01-02 15:04:05")
			}
			ts = s
		case "level":
			level = s
		case "msg":
			msg = s
		default:
			if isStr && strings.ContainsAny(s, " \t\"=") {
				s = fmt.Sprintf("%q", s)
			}
			rest = append(rest, key+"="+s)
		}
	}
	out := strings.TrimSpace(fmt.Sprintf("%s %-5s %s", ts, level, msg))
	if len(rest) > 0 {
		out += "  " + strings.Join(rest, " ")
	}
	return clean(out)
}
