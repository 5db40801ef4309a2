package storage

import "strings"

// attachmentRefPrefix starts a reference to an attachment in item text.
const attachmentRefPrefix = "pad-attachment:"

// RewriteAttachmentRefs rewrites each pad-attachment:<id> in text whose id
// ids maps, and keeps everything else byte for byte.
func RewriteAttachmentRefs(text string, ids func(old string) (string, bool)) string {
	if !strings.Contains(text, attachmentRefPrefix) {
		return text
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, attachmentRefPrefix)
		if i < 0 {
			break
		}
		b.WriteString(rest[:i+len(attachmentRefPrefix)])
		rest = rest[i+len(attachmentRefPrefix):]
		n := 0
		for n < len(rest) && (rest[n] == '-' || isHex(rest[n])) {
			n++
		}
		if id, ok := ids(rest[:n]); ok && n > 0 {
			b.WriteString(id)
		} else {
			b.WriteString(rest[:n])
		}
		rest = rest[n:]
	}
	b.WriteString(rest)
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
