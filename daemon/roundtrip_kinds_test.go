package daemon

import (
	"encoding/json"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
)

// The lists that keep the round trip's fixture (fillEverything) whole: a
// new member of the export format, a new field of a model entity, a new
// field type, link type or reserved key fails a test here until the
// fixture holds it or a line says why it does not travel. (The storage
// side, a new bucket of a workspace, is held by storage's
// TestEveryWorkspaceBucketIsExportedOrSaysWhy.)

// exportNotInFixture are the members of the export format the fixture
// leaves empty, and why. Every other member holds a value somewhere in
// the fixture's bundle.
var exportNotInFixture = map[string]string{
	"CollectionExport.Traits":          "newer Pad's kernel traits: padd writes none, and counts them as not modelled on import",
	"ItemExport.CollabSetAside":        "newer Pad's set-aside editor rows: padd writes none",
	"ItemExport.BuiltinOrigin":         "newer Pad's origin, naming Pad's library: padd writes its own as library_origin",
	"ItemVersionExport.IsDiff":         "padd writes whole bodies, never diffs",
	"AttachmentManifestEntry.ParentID": "a variant's original: padd writes no variants",
	"AttachmentManifestEntry.Variant":  "padd writes no variants (it makes thumbnails when asked)",
	"ReactionExport.UserID":            "another person's reaction, which only a pull from a linked remote brings; the fixture is made through padd's own routes",
}

// modelTravels says, for each field of each model entity an export
// carries, the export member it travels in, or "-" and why it does not.
// A field not listed fails TestEveryModelFieldTravelsOrSaysWhy.
var modelTravels = map[string]map[string]string{
	"Workspace": {
		"ID": "- renewed by the import", "Name": "workspace.name", "Slug": "workspace.slug",
		"Description": "workspace.description", "Template": "workspace.template",
		"SortOrder": "- the importer's order", "CreatedAt": "- the import's time", "UpdatedAt": "- the import's time",
		"DeletedAt": "- a deleted workspace is not exported", "Seq": "- renewed by the import",
		"ReportLayout": "workspace.report_layout",
		"Context":      "workspace.settings",
	},
	"SavedView": {
		"ID": "- renewed by the import", "WorkspaceID": "- the import's", "CollectionID": "saved_views.collection_id",
		"Name": "saved_views.name", "Slug": "saved_views.slug", "ViewType": "saved_views.view_type", "Config": "saved_views.config",
		"SortOrder": "saved_views.sort_order", "IsDefault": "- Pad's create never sets it, and padd has no door that does",
		"CreatedAt": "- the import's time", "UpdatedAt": "- the import's time", "Seq": "- renewed by the import",
	},
	"Collection": {
		"ID": "collections.id", "WorkspaceID": "- the import's", "Name": "collections.name", "Slug": "collections.slug",
		"Prefix": "collections.prefix", "FormerPrefixes": "collections.former_prefixes", "Icon": "collections.icon",
		"Description": "collections.description", "Schema": "collections.schema", "Settings": "collections.settings",
		"IsSystem": "collections.is_system", "IsDefault": "collections.is_default", "SortOrder": "collections.sort_order",
		"CreatedAt": "collections.created_at", "UpdatedAt": "collections.updated_at", "ArchivedAt": "collections.archived_at",
		"Seq": "- renewed by the import",
	},
	"Item": {
		"ID": "items.id", "WorkspaceID": "- the import's", "CollectionID": "items.collection_id", "Number": "items.item_number",
		"Title": "items.title", "Slug": "items.slug", "Content": "items.content", "Fields": "items.fields", "Tags": "items.tags",
		"Pinned": "items.pinned", "SortOrder": "items.sort_order", "ParentID": "items.parent_id",
		"AssignedUserID": "items.assigned_user_id", "AgentRoleID": "items.agent_role", "RoleSortOrder": "items.role_sort_order",
		"CreatedBy": "items.created_by", "LastModifiedBy": "items.last_modified_by", "CreatedAt": "items.created_at",
		"UpdatedAt": "items.updated_at",
		"DeletedAt": "- an archived item (Pad's deleted) is left out, as Pad's export leaves it out",
		"Seq":       "- renewed by the import",
	},
	"Comment": {
		"ID": "comments.id", "WorkspaceID": "- the import's", "ItemID": "comments.item_id", "ParentID": "comments.parent_id",
		"Body": "comments.body", "Author": "comments.author", "CreatedAt": "comments.created_at", "UpdatedAt": "comments.updated_at",
		"DeletedAt": "- a deleted comment is left out (no tombstones, as Pad); its replies go without their parent",
		"Seq":       "- renewed by the import", "Reactions": "comments.reactions",
		"ReactionsGone": "- sync's record of reactions to take back on the remote: an import is linked to none",
	},
	"Link": {
		"ID": "item_links.id", "WorkspaceID": "- the import's", "SourceID": "item_links.source_id", "TargetID": "item_links.target_id",
		"Type": "item_links.link_type", "CreatedBy": "item_links.created_by", "CreatedAt": "item_links.created_at",
		"Seq": "- renewed by the import",
	},
	"Role": {
		"ID": "- renewed by the import (items name a role by slug)", "WorkspaceID": "- the import's", "Slug": "roles.slug",
		"Name": "roles.name", "Icon": "roles.icon", "Description": "roles.description", "Tools": "roles.tools",
		"SortOrder": "roles.sort_order", "CreatedAt": "- the import's time", "UpdatedAt": "- the import's time",
		"Seq": "- renewed by the import",
	},
	"Version": {
		"ID": "item_versions.id", "ItemID": "item_versions.item_id", "VersionSeq": "- renumbered in order by the import",
		"Title": "item_versions.title", "Content": "item_versions.content",
		"Current": "- the newest version; the import marks it", "Summary": "item_versions.change_summary",
		"Actor": "item_versions.created_by", "IsCreate": "- the oldest version; the import marks it",
		"LinesAdded": "- counted again by the import", "LinesRemoved": "- counted again by the import",
		"CreatedAt": "item_versions.created_at", "Seq": "- renewed by the import",
	},
	"Actor": {
		"Kind": "items.created_by", "Name": "items.created_by_name", "Source": "items.source",
		"WorkerID": "- a lease holder's session on this padd, which means nothing elsewhere",
	},
	"Attachment": {
		"ID": "attachments.id", "WorkspaceID": "- the import's", "ItemID": "attachments.item_id",
		"Filename": "attachments.filename", "FilenameSource": "- read again from the file name by the import",
		"MIME": "attachments.mime", "Size": "attachments.size_bytes", "Hash": "attachments.content_hash",
		"Width": "attachments.width", "Height": "attachments.height", "UploadedBy": "attachments.uploaded_by",
		"CreatedAt": "attachments.created_at", "Imported": "- set by the import (Pad's imported: true)",
		"ItemRef": "- the item's, read with it", "ItemTitle": "- the item's, read with it",
		"CollectionSlug": "- the item's, read with it", "ItemArchived": "- the item's, read with it",
	},
}

// A new field of a model entity the export carries says whether it
// travels and in which member, or why not: a field with no line fails,
// and so does a line naming a member the export format lacks.
func TestEveryModelFieldTravelsOrSaysWhy(t *testing.T) {
	members := exportMembers()
	for _, typ := range []reflect.Type{
		reflect.TypeFor[model.Workspace](), reflect.TypeFor[model.Collection](), reflect.TypeFor[model.Item](),
		reflect.TypeFor[model.Comment](), reflect.TypeFor[model.Link](), reflect.TypeFor[model.Role](),
		reflect.TypeFor[model.Version](), reflect.TypeFor[model.Actor](), reflect.TypeFor[storage.Attachment](),
		reflect.TypeFor[model.SavedView](),
	} {
		rows, ok := modelTravels[typ.Name()]
		if !ok {
			t.Errorf("model.%s has no table in modelTravels", typ.Name())
			continue
		}
		seen := map[string]bool{}
		for f := range typ.Fields() {
			seen[f.Name] = true
			where, ok := rows[f.Name]
			switch {
			case !ok:
				t.Errorf("%s.%s: a new field; say which export member carries it (and put one in fillEverything), or why it does not travel", typ.Name(), f.Name)
			case strings.HasPrefix(where, "- "):
			case !members[where]:
				t.Errorf("%s.%s travels in %q, which the export format does not have", typ.Name(), f.Name, where)
			}
		}
		for name := range rows {
			if !seen[name] {
				t.Errorf("modelTravels names %s.%s, which the type does not have", typ.Name(), name)
			}
		}
	}
}

// exportMembers lists the export format's members as section.member
// (workspace.name, items.title, attachments.filename).
func exportMembers() map[string]bool {
	out := map[string]bool{}
	add := func(section string, typ reflect.Type) {
		for f := range typ.Fields() {
			if name := jsonName(f); name != "" {
				out[section+"."+name] = true
			}
		}
	}
	for f := range reflect.TypeFor[api.WorkspaceExport]().Fields() {
		typ := f.Type
		if typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() == reflect.Struct {
			add(jsonName(f), typ)
		}
	}
	add("attachments", reflect.TypeFor[api.AttachmentManifestEntry]())
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// The fixture holds every kind of thing: a value in every member of the
// export format (and of a collection's schema and settings), every field
// type with an item's value, every reserved key, every link type and a
// foreign one.
func TestFixtureHoldsEveryKind(t *testing.T) {
	h := newHarness(t)
	all := fillEverything(h)
	bundle := h.mustJSON("GET", "/api/v1/workspaces/"+all+"/export?format=tar", nil, 200, nil)
	es := bundleEntries(t, bundle.body)
	var e api.WorkspaceExport
	var m api.AttachmentManifest
	if err := json.Unmarshal([]byte(es[0].Body), &e); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(es[1].Body), &m); err != nil {
		t.Fatal(err)
	}

	// Every member of the format, the schema's and the settings' too.
	held := map[string]bool{}
	walkValues(reflect.ValueOf(e), held)
	walkValues(reflect.ValueOf(m), held)
	types := map[string]bool{}    // field types declared
	valued := map[string]bool{}   // field types an item holds a value of
	typeOf := map[string]string{} // collection id + key -> type
	for _, c := range e.Collections {
		var s model.Schema
		var set model.Settings
		if err := json.Unmarshal([]byte(c.Schema), &s); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.Settings), &set); err != nil {
			t.Fatal(err)
		}
		walkValues(reflect.ValueOf(s), held)
		walkValues(reflect.ValueOf(set), held)
		for _, f := range s.Fields {
			types[f.Type] = true
			typeOf[c.ID+"/"+f.Key] = f.Type
		}
	}
	// Every id a relation value or default names is an item of this
	// workspace (an import gives them the new ids).
	itemIDs := map[string]bool{}
	for _, it := range e.Items {
		itemIDs[it.ID] = true
	}
	namesItems := func(what string, v any) {
		vs, _ := v.([]any)
		if s, ok := v.(string); ok {
			vs = []any{s}
		}
		for _, x := range vs {
			if s, _ := x.(string); uuidLike.MatchString(s) && !itemIDs[s] {
				t.Errorf("%s names %s, not an item of this workspace", what, s)
			}
		}
	}
	for _, c := range e.Collections {
		var s model.Schema
		_ = json.Unmarshal([]byte(c.Schema), &s)
		for _, f := range s.Fields {
			if f.Type == model.TypeRelation || f.Type == model.TypeMultiRelation {
				namesItems(c.Slug+"'s default of "+f.Key, f.Default)
			}
		}
	}
	reserved := map[string]bool{}
	for _, it := range e.Items {
		fields, err := api.DecodeObject(it.Fields)
		if err != nil {
			t.Fatal(err)
		}
		for k := range fields {
			if model.IsReservedField(k) {
				reserved[k] = true
			}
			if typ := typeOf[it.CollectionID+"/"+k]; typ != "" {
				valued[typ] = true
				if typ == model.TypeRelation || typ == model.TypeMultiRelation {
					namesItems(it.Title+"'s "+k, fields[k])
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(held)) {
		if !held[k] {
			if _, why := exportNotInFixture[k]; !why {
				t.Errorf("%s holds no value in the fixture: give it one in fillEverything (or say in exportNotInFixture why it cannot)", k)
			}
		} else if why, listed := exportNotInFixture[k]; listed {
			t.Errorf("%s holds a value, but exportNotInFixture says %q: drop the line", k, why)
		}
	}
	for k := range exportNotInFixture {
		if _, known := held[k]; !known {
			t.Errorf("exportNotInFixture names %s, which the export format does not have", k)
		}
	}
	for _, typ := range model.FieldTypes() {
		if !types[typ] || !valued[typ] {
			t.Errorf("field type %s: declared %v, an item's value %v", typ, types[typ], valued[typ])
		}
	}
	for _, k := range model.ReservedFields() {
		if !reserved[k] {
			t.Errorf("no item holds the reserved key %s", k)
		}
	}
	links := map[string]bool{}
	for _, l := range e.ItemLinks {
		links[l.LinkType] = true
	}
	for _, typ := range model.LinkTypes {
		if _, _, stored, _ := model.CanonicalLink("a", "b", typ); !links[stored] {
			t.Errorf("no link of type %s (stored as %s)", typ, stored)
		}
	}
	foreign := false
	for typ := range links {
		foreign = foreign || model.ForeignLinkType(typ)
	}
	if !foreign {
		t.Error("no link of a type padd does not know (a newer Pad's)")
	}
}

var uuidLike = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// walkValues records, for each struct member reachable from v as
// Type.Field, whether some value of it is not zero.
func walkValues(v reflect.Value, held map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			walkZero(v.Type().Elem(), held)
		} else {
			walkValues(v.Elem(), held)
		}
	case reflect.Interface:
		if !v.IsNil() {
			walkValues(v.Elem(), held)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkValues(v.Index(i), held)
		}
		if v.Len() == 0 {
			walkZero(v.Type().Elem(), held)
		}
	case reflect.Struct:
		typ := v.Type()
		if typ.PkgPath() == "time" {
			return
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			k := typ.Name() + "." + f.Name
			held[k] = held[k] || !v.Field(i).IsZero()
			walkValues(v.Field(i), held)
		}
	}
}

// walkZero records the members of a type no value was seen of.
func walkZero(typ reflect.Type, held map[string]bool) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || typ.PkgPath() == "time" {
		return
	}
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		k := typ.Name() + "." + f.Name
		if _, ok := held[k]; ok {
			continue
		}
		held[k] = false
		walkZero(f.Type, held)
	}
}
