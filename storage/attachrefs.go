package storage

import "strings"

// AttachmentRefPrefix starts a reference to an attachment in an item's
// content, a string field value or a comment's body, as Pad writes it:
// "pad-attachment:<id>", usually inside markdown, ![alt](pad-attachment:<id>)
// or [text](pad-attachment:<id>).
const AttachmentRefPrefix = "pad-attachment:"

// isRefIDByte reports whether c may be part of a referenced id: the
// characters Pad's reference scanner takes (letters, digits, '_', '-').
func isRefIDByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '-'
}

// RewriteAttachmentRefs is text with each reference
// "pad-attachment:<id>" whose id ids knows rewritten to name ids' answer.
// The id is the longest run of letters, digits, '_' and '-' after the
// prefix (so "pad-attachment:<id>x" is not a reference to <id>); ids is
// called with it in lower case, so a map keyed by lower-case ids matches
// whatever the case in the text. A reference ids does not know, and every
// byte outside the rewritten ids, is kept as it is. The work is one pass
// over text, with at most one call of ids per reference.
func RewriteAttachmentRefs(text string, ids func(old string) (string, bool)) string {
	first := strings.Index(text, AttachmentRefPrefix)
	if first < 0 {
		return text
	}
	var b strings.Builder
	done := 0 // text[:done] is in b, or unchanged when b is empty
	for i := first; i >= 0; {
		start := i + len(AttachmentRefPrefix)
		end := start
		for end < len(text) && isRefIDByte(text[end]) {
			end++
		}
		if end > start {
			if nw, ok := ids(strings.ToLower(text[start:end])); ok && nw != text[start:end] {
				if b.Len() == 0 && done == 0 {
					b.Grow(len(text) + len(nw))
				}
				b.WriteString(text[done:start])
				b.WriteString(nw)
				done = end
			}
		}
		next := strings.Index(text[end:], AttachmentRefPrefix)
		if next < 0 {
			break
		}
		i = end + next
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// RewriteAttachmentRefsValue is RewriteAttachmentRefs over a field value:
// a string, or each string in lists and objects, however deep. A value
// with nothing to rewrite is returned as it is (not copied); changed says
// whether anything was.
func RewriteAttachmentRefsValue(v any, ids func(string) (string, bool)) (out any, changed bool) {
	switch x := v.(type) {
	case string:
		out := RewriteAttachmentRefs(x, ids)
		return out, out != x
	case []any:
		var out []any
		for i, e := range x {
			if ne, ch := RewriteAttachmentRefsValue(e, ids); ch {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = ne
			}
		}
		if out != nil {
			return out, true
		}
	case []string:
		var out []string
		for i, e := range x {
			if ne := RewriteAttachmentRefs(e, ids); ne != e {
				if out == nil {
					out = append([]string(nil), x...)
				}
				out[i] = ne
			}
		}
		if out != nil {
			return out, true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if ne, ch := RewriteAttachmentRefsValue(e, ids); ch {
				if out == nil {
					out = cloneFields(x)
				}
				out[k] = ne
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// RewriteAttachmentRefsFields is RewriteAttachmentRefsValue over an
// item's fields: fields itself when nothing changes, else a copy.
func RewriteAttachmentRefsFields(fields map[string]any, ids func(string) (string, bool)) map[string]any {
	if fields == nil {
		return nil
	}
	out, _ := RewriteAttachmentRefsValue(fields, ids)
	return out.(map[string]any)
}
