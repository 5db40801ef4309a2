package mirror

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// maxSlug bounds the slug part of a file name, so that a name stays well
// under every filesystem's 255 bytes whatever the title.
const maxSlug = 60

// windowsReserved are device names Windows will not create as files,
// with or without an extension.
var windowsReserved = map[string]bool{"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true}

// safeName makes one path element from a title, slug or ref: letters
// and digits of every script, with their combining marks, lower case
// (the case kept when keepCase, for refs), joined by single hyphens in
// place of everything else (spaces, punctuation, symbols, emoji,
// controls, separators). Cut at a character once maxSlug bytes are
// reached (so at most maxSlug+4: a hyphen and one character past it);
// never empty, never a dot name, a separator or a Windows device name.
// An ASCII name comes out as it always has, so the files of a mirror
// made by an older padd keep their names.
func safeName(s string, keepCase bool, fallback string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !(unicode.IsMark(r) && b.Len() > 0 && !hyphen) {
			hyphen = b.Len() > 0
			continue
		}
		if !keepCase {
			r = unicode.ToLower(r)
		}
		if b.Len() >= maxSlug {
			break
		}
		if hyphen {
			b.WriteByte('-')
			hyphen = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if out == "" {
		out = fallback
	}
	if windowsReserved[strings.ToLower(out)] {
		out = "_" + out
	}
	return out
}

// FileName is an item's file name in its collection folder.
func FileName(ref, title string) string {
	return safeName(ref, true, "item") + "-" + safeName(title, false, "untitled") + ".md"
}

// FolderName is a collection's folder.
func FolderName(slug string) string { return safeName(slug, false, "collection") }

// errOutside refuses a path that leaves the mirror.
var errOutside = errors.New("the path leaves the mirror's directory")

// resolve is rel (slash-separated, relative) under root, refused when it
// would leave root or pass through a symbolic link on the way.
func resolve(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || strings.Contains(rel, "\\") || strings.Contains(rel, ":") {
		return "", errOutside
	}
	parts := strings.Split(rel, "/")
	p := root
	for i, part := range parts {
		if part == "" || part == "." || part == ".." {
			return "", errOutside
		}
		p = filepath.Join(p, part)
		if i == len(parts)-1 {
			break
		}
		fi, err := os.Lstat(p)
		if err == nil && !fi.IsDir() {
			return "", errOutside // a link (or a file) where a folder goes
		}
	}
	return p, nil
}

// ignored reports whether a file name is not an item's file: editors'
// swap, backup and lock files, the mirror's own temporary and conflict
// files, hidden files, and anything not Markdown.
func ignored(name string) bool {
	switch {
	case name == "", strings.HasPrefix(name, "."), strings.HasPrefix(name, "#"), strings.HasSuffix(name, "~"):
		return true
	case strings.HasSuffix(name, ".conflict.md"), strings.HasSuffix(name, ".comments.md"):
		return true
	}
	return !strings.HasSuffix(name, ".md")
}
