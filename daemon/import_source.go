package daemon

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// An import reads pad-export.json whole, checks that it is JSON, and
// decodes only its small members (the workspace, collections, roles).
// Of its four long lists (items, comments, links, versions) it keeps the
// byte span of each element, and decodes and converts an element when
// the import writes it (exportSource, storage.ImportSource): a million
// items cost their bytes and a few words each, not a million decoded and
// converted records at once.

// exportDoc is pad-export.json, read but not decoded.
type exportDoc struct {
	raw []byte
	// meta holds the small members; its four lists stay empty.
	meta                             api.WorkspaceExport
	items, comments, links, versions []span
	// bundle: read from a bundle, whose refusals are bad_bundle.
	bundle bool
}

// span is an element's bytes in exportDoc.raw.
type span struct{ start, end uint32 }

// readExport reads the JSON export from r, size bytes when known (else
// -1): more than limit bytes are refused as too large; anything that is
// not one JSON object holding lists where the export has them, as a
// *notExport that says why. A failed read is returned as it is.
func readExport(r io.Reader, size, limit int64) (*exportDoc, error) {
	raw, err := readAtMost(r, size, limit)
	if err != nil {
		return nil, err
	}
	d := &exportDoc{raw: raw}
	head := raw[:min(len(raw), 16)]
	if !json.Valid(d.raw) {
		dec := json.NewDecoder(bytes.NewReader(d.raw))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &notExport{why: exportProblem(head, err)}
		}
		return nil, &notExport{why: "it has more data after its JSON object"}
	}
	if err := d.scan(); err != nil {
		return nil, &notExport{why: exportProblem(head, err)}
	}
	return d, nil
}

// readAtMost reads r to its end into one buffer, which doubles as the
// bytes arrive, up to size (the length announced, -1 when unknown) so
// that an announced body is held in a buffer of its size. Memory follows
// the bytes that came, never the announcement. More than limit bytes are
// refused as too large.
func readAtMost(r io.Reader, size, limit int64) ([]byte, error) {
	want := limit
	if size >= 0 && size < limit {
		want = size
	}
	buf := make([]byte, 0, min(want, 64<<10)+1)
	for {
		if len(buf) == cap(buf) {
			n := 2 * int64(cap(buf))
			if int64(cap(buf)) <= want {
				n = min(n, want+1) // +1: room to see the end
			}
			grown := make([]byte, len(buf), n)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, importTooLarge()
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// scan finds the members of the valid JSON in d.raw: the four lists'
// elements by span, the rest decoded into d.meta as encoding/json would
// (names matched in any case, the last of a name given twice wins).
func (d *exportDoc) scan() error {
	b := d.raw
	p := skipSpace(b, 0)
	if bytes.HasPrefix(b[p:], []byte("null")) {
		return nil
	}
	if b[p] != '{' {
		// exportProblem says it from the document's start.
		return fmt.Errorf("it is JSON %s, not an object", jsonKind(kindAt(b[p])))
	}
	rest := []byte{'{'}
	for p = skipSpace(b, p+1); b[p] != '}'; {
		end := skipValue(b, p)
		var name string
		if err := json.Unmarshal(b[p:end], &name); err != nil {
			return err
		}
		member := b[p:end]
		p = skipSpace(b, skipSpace(b, end)+1) // past the colon
		end = skipValue(b, p)
		value := b[p:end]
		var list *[]span
		for _, l := range []struct {
			name string
			list *[]span
		}{{"items", &d.items}, {"comments", &d.comments}, {"item_links", &d.links}, {"item_versions", &d.versions}} {
			if strings.EqualFold(name, l.name) {
				list = l.list
			}
		}
		if list != nil {
			spans, err := elements(b, p, end)
			if err != nil {
				return fmt.Errorf("its %q is %s where Pad's export has an array", name, err)
			}
			*list = spans
		} else {
			if len(rest) > 1 {
				rest = append(rest, ',')
			}
			rest = append(append(append(rest, member...), ':'), value...)
		}
		if p = skipSpace(b, end); b[p] == ',' {
			p = skipSpace(b, p+1)
		}
	}
	return json.Unmarshal(append(rest, '}'), &d.meta)
}

// elements are the spans of the elements of the JSON list at b[p:end]
// (null is an empty list).
func elements(b []byte, p, end int) ([]span, error) {
	if bytes.Equal(b[p:end], []byte("null")) {
		return nil, nil
	}
	if b[p] != '[' {
		return nil, errors.New(jsonKind(kindAt(b[p])))
	}
	var out []span
	for p = skipSpace(b, p+1); b[p] != ']'; {
		e := skipValue(b, p)
		out = append(out, span{uint32(p), uint32(e)})
		if p = skipSpace(b, e); b[p] == ',' {
			p = skipSpace(b, p+1)
		}
	}
	return out, nil
}

// kindAt is the kind of the JSON value starting with c, as
// json.UnmarshalTypeError spells it (jsonKind says it in words).
func kindAt(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

// skipValue is the end of the JSON value that starts at b[p], in b known
// to be valid JSON.
func skipValue(b []byte, p int) int {
	switch b[p] {
	case '"':
		for p++; ; p++ {
			switch b[p] {
			case '\\':
				p++
			case '"':
				return p + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; ; p++ {
			switch b[p] {
			case '"':
				p = skipValue(b, p) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return p + 1
				}
			}
		}
	}
	for p < len(b) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(b[p])) {
		p++
	}
	return p
}

// element decodes the element at s into v.
func (d *exportDoc) element(s span, v any) error {
	if err := json.Unmarshal(d.raw[s.start:s.end], v); err != nil {
		return (&notExport{why: exportProblem(d.raw[s.start:min(s.end, s.start+16)], err)}).refusal(d.bundle)
	}
	return nil
}

// exportSource converts the export's elements to storage's import one at
// a time, counting what padd does not model as it goes.
type exportSource struct {
	doc *exportDoc
	nm  map[string]int // not modelled, by kind
	// versions are the indexes of each item's versions, by the item's
	// export id: every version was checked before the import began.
	versions map[string][]int32
}

// newExportSource checks every version of the export (a version that
// names no exported item too: its hash and timestamp refuse the import
// as before), and groups them by item.
func newExportSource(d *exportDoc, nm map[string]int) (*exportSource, error) {
	s := &exportSource{doc: d, nm: nm, versions: map[string][]int32{}}
	for i, sp := range d.versions {
		var v api.ItemVersionExport
		if err := d.element(sp, &v); err != nil {
			return nil, err
		}
		if v.IsDiff {
			nm["diff_versions"]++
			continue
		}
		if v.BodySHA256 != "" {
			sum := sha256.Sum256([]byte(v.Content))
			if !strings.EqualFold(hex.EncodeToString(sum[:]), v.BodySHA256) {
				return nil, api.Errorf(api.CodeBadBundle, "item version %d: its body does not match its body_sha256", i).
					With("reason", "version_hash_mismatch").With("entity", "version").With("index", i)
			}
		}
		if _, err := importTime("version", i, v.CreatedAt); err != nil {
			return nil, err
		}
		s.versions[v.ItemID] = append(s.versions[v.ItemID], int32(i))
	}
	return s, nil
}

// importTime reads an entity's timestamp, refusing one padd cannot read.
func importTime(entity string, i int, s string) (time.Time, error) {
	t, ok := parseExportTime(s)
	if !ok {
		return t, model.Invalid("%s %d has a timestamp padd cannot read: %q", entity, i, model.Excerpt(s)).
			With("entity", entity).With("index", i)
	}
	return t, nil
}

func (s *exportSource) Items() int    { return len(s.doc.items) }
func (s *exportSource) Comments() int { return len(s.doc.comments) }
func (s *exportSource) Links() int    { return len(s.doc.links) }

func (s *exportSource) ItemRef(i int) (storage.ImportItemRef, error) {
	var r struct {
		ID         string `json:"id"`
		ParentID   string `json:"parent_id"`
		ItemNumber int64  `json:"item_number"`
	}
	err := s.doc.element(s.doc.items[i], &r)
	return storage.ImportItemRef{Key: r.ID, ParentKey: r.ParentID, Number: r.ItemNumber}, err
}

func (s *exportSource) Item(i int) (storage.ImportItem, error) {
	var it api.ItemExport
	if err := s.doc.element(s.doc.items[i], &it); err != nil {
		return storage.ImportItem{}, err
	}
	bad := func(format string, args ...any) error {
		return model.Invalid(format, args...).With("entity", "item").With("index", i)
	}
	fields, err := api.DecodeObject(it.Fields)
	if err != nil {
		return storage.ImportItem{}, bad("item %q: %v", model.Excerpt(it.Title), err)
	}
	var tags []string
	if t := strings.TrimSpace(it.Tags); t != "" && t != "null" {
		if err := json.Unmarshal([]byte(t), &tags); err != nil {
			return storage.ImportItem{}, bad("item %q: tags are not a JSON list of strings: %v", model.Excerpt(it.Title), err)
		}
	}
	if it.CollabSetAside != nil {
		s.nm["item_collab_set_aside"]++
	}
	if it.BuiltinOrigin != nil {
		s.nm["item_builtin_origin"]++
	}
	ii := storage.ImportItem{Key: it.ID, CollectionKey: it.CollectionID, ParentKey: it.ParentID, Title: it.Title,
		Content: it.Content, Slug: it.Slug, Fields: fields, Tags: tags, Pinned: it.Pinned, SortOrder: it.SortOrder,
		Number: it.ItemNumber, Role: it.Role, AssignedUserID: it.AssignedUserID, RoleSortOrder: it.RoleSortOrder,
		CreatedBy:      exportActor(it.CreatedBy, it.CreatedByName, it.Source),
		LastModifiedBy: exportActor(it.LastModifiedBy, it.LastModifiedByName, it.Source)}
	if o := it.LibraryOrigin; o != nil {
		if ii.Origin = importOrigin(o); ii.Origin == nil {
			s.nm["library_origin_malformed"]++
		}
	}
	if err := checkInput(storage.ItemCreate{Title: ii.Title, Content: ii.Content, Fields: ii.Fields, Tags: ii.Tags}); err != nil {
		return storage.ImportItem{}, withEntity(err, "item", i)
	}
	if ii.CreatedAt, err = importTime("item", i, it.CreatedAt); err != nil {
		return storage.ImportItem{}, err
	}
	if ii.UpdatedAt, err = importTime("item", i, it.UpdatedAt); err != nil {
		return storage.ImportItem{}, err
	}
	return ii, nil
}

// Versions are the item's versions, oldest first (the export's order
// among those of the same time).
func (s *exportSource) Versions(itemKey string) ([]storage.ImportVersion, error) {
	idx := s.versions[itemKey]
	if len(idx) == 0 {
		return nil, nil
	}
	out := make([]storage.ImportVersion, 0, len(idx))
	for _, i := range idx {
		var v api.ItemVersionExport
		if err := s.doc.element(s.doc.versions[i], &v); err != nil {
			return nil, err
		}
		at, err := importTime("version", int(i), v.CreatedAt)
		if err != nil {
			return nil, err
		}
		out = append(out, storage.ImportVersion{Title: v.Title, Content: v.Content, Summary: v.ChangeSummary,
			Actor: exportActor(v.CreatedBy, v.CreatedByName, v.Source), CreatedAt: at})
	}
	slices.SortStableFunc(out, func(a, b storage.ImportVersion) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

func (s *exportSource) Comment(i int) (storage.ImportComment, error) {
	var c api.CommentExport
	if err := s.doc.element(s.doc.comments[i], &c); err != nil {
		return storage.ImportComment{}, err
	}
	if err := checkInput(storage.CommentCreate{Body: c.Body}); err != nil {
		return storage.ImportComment{}, withEntity(err, "comment", i)
	}
	ic := storage.ImportComment{Key: c.ID, ItemKey: c.ItemID, ParentKey: c.ParentID, Body: c.Body,
		Author: exportActor(c.CreatedBy, c.Author, c.Source)}
	var err error
	if ic.CreatedAt, err = importTime("comment", i, c.CreatedAt); err != nil {
		return storage.ImportComment{}, err
	}
	if ic.UpdatedAt, err = importTime("comment", i, c.UpdatedAt); err != nil {
		return storage.ImportComment{}, err
	}
	for _, r := range c.Reactions {
		if err := storage.CheckEmoji(r.Emoji); err != nil {
			return storage.ImportComment{}, withEntity(err, "comment", i)
		}
		at, err := importTime("comment", i, r.CreatedAt)
		if err != nil {
			return storage.ImportComment{}, err
		}
		ic.Reactions = append(ic.Reactions, model.Reaction{Emoji: r.Emoji, UserID: r.UserID,
			Actor: exportActor(r.Actor, r.ActorName, model.SourceAPI), CreatedAt: at})
	}
	return ic, nil
}

// Link is the i-th link; one of a type padd does not know, or from an
// item to itself, is counted and left out.
func (s *exportSource) Link(i int) (storage.ImportLink, bool, error) {
	var l api.ItemLinkExport
	if err := s.doc.element(s.doc.links[i], &l); err != nil {
		return storage.ImportLink{}, false, err
	}
	typ := model.NormalizeLinkType(l.LinkType)
	if _, _, _, known := model.CanonicalLink("", "", typ); !known && !model.ForeignLinkType(typ) || l.SourceID == l.TargetID {
		s.nm["link_type_"+model.Excerpt(l.LinkType)]++
		return storage.ImportLink{}, false, nil
	}
	at, err := importTime("link", i, l.CreatedAt)
	if err != nil {
		return storage.ImportLink{}, false, err
	}
	return storage.ImportLink{SourceKey: l.SourceID, TargetKey: l.TargetID, Type: typ,
		CreatedBy: exportActor(l.CreatedBy, l.CreatedByName, ""), CreatedAt: at}, true, nil
}
