package memuse

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
)

// read sums /proc/self/smaps' Rss by what each mapping maps; nil when it
// cannot be read.
func read(k Files) *Use {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer f.Close()
	m, err := parseSmaps(f, k)
	if err != nil {
		return nil
	}
	m.Peak = peakResident()
	return m
}

// peakResident is /proc/self/status' VmHWM in bytes (0 when unreadable).
func peakResident() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("\nVmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// parseSmaps reads smaps: a header line per mapping ("start-end perms
// offset dev inode [path]") followed by "Key: value kB" lines.
func parseSmaps(r io.Reader, k Files) (*Use, error) {
	m := &Use{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var path string
	for sc.Scan() {
		line := sc.Bytes()
		key, rest, isAttr := bytes.Cut(line, []byte(":"))
		if isAttr && bytes.IndexByte(key, ' ') < 0 && bytes.IndexByte(key, '-') < 0 {
			if string(key) == "Rss" {
				kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
				if err != nil {
					return nil, err
				}
				k.add(m, path, kb<<10)
			}
			continue
		}
		path = mappedPath(line)
	}
	return m, sc.Err()
}

// mappedPath is a header line's path: what follows its fifth field,
// spaces and all ("" for an anonymous mapping).
func mappedPath(header []byte) string {
	rest := header
	for range 5 {
		rest = bytes.TrimLeft(rest, " \t")
		i := bytes.IndexAny(rest, " \t")
		if i < 0 {
			return ""
		}
		rest = rest[i:]
	}
	return string(bytes.TrimLeft(rest, " \t"))
}
