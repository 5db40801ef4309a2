package daemon

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/padd/padd/api"
	"github.com/padd/padd/model"
	"github.com/padd/padd/storage"
	"github.com/padd/padd/storage/views"
)

// What agents read before and while they work: the built-in library,
// playbooks, the agent bootstrap, the item work brief, and exact-text
// body patches.
func (s *Server) knowledgeRoutes() {
	s.handle("GET /api/v1/convention-library", s.conventionLibrary)
	s.handle("GET /api/v1/playbook-library", s.playbookLibrary)
	s.handle("GET /api/v1/library/entry", s.libraryEntry)
	s.handle("POST /api/v1/workspaces/{ws}/library/activate", s.libraryActivate)

	s.handle("GET /api/v1/workspaces/{ws}/playbooks", s.listPlaybooks)
	s.handle("POST /api/v1/workspaces/{ws}/playbooks/match", s.matchPlaybook)
	s.handle("GET /api/v1/workspaces/{ws}/playbooks/{ref}", s.getPlaybook)
	s.handle("POST /api/v1/workspaces/{ws}/playbooks/{ref}/run", s.runPlaybook)

	s.handle("GET /api/v1/workspaces/{ws}/agent/bootstrap", s.bootstrap)
	s.handle("GET /api/v1/workspaces/{ws}/items/{ref}/context", s.itemContext)
	s.handle("POST /api/v1/workspaces/{ws}/items/{ref}/patch", s.patchItem)
}

// conventionLibrary lists the built-in conventions; ?category= keeps one
// category (an unknown one gives an empty list, not a 404: the library
// exists, the filter matched nothing).
func (s *Server) conventionLibrary(w http.ResponseWriter, r *http.Request) error {
	out := api.ConventionLibrary{Categories: []api.ConventionCategory{}}
	want := r.URL.Query().Get("category")
	for _, c := range model.ConventionLibrary() {
		if want == "" || c.Name == want {
			out.Categories = append(out.Categories, wireConventionCategory(c))
		}
	}
	writeJSON(w, 200, out)
	return nil
}

// playbookLibrary lists the built-in playbooks; ?category= filters and
// ?summary=true sends each body's summary instead of the body.
func (s *Server) playbookLibrary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	summary := q.Get("summary") == "true"
	out := api.PlaybookLibrary{Categories: []api.PlaybookCategory{}}
	for _, c := range model.PlaybookLibrary() {
		if want := q.Get("category"); want != "" && c.Name != want {
			continue
		}
		out.Categories = append(out.Categories, wirePlaybookCategory(c, summary))
	}
	writeJSON(w, 200, out)
	return nil
}

// libraryEntry answers one entry, by ?key= or by exact ?title=, as
// {type, convention | playbook}.
func (s *Server) libraryEntry(w http.ResponseWriter, r *http.Request) error {
	key, title := r.URL.Query().Get("key"), r.URL.Query().Get("title")
	if key == "" && title == "" {
		return model.BadRequest("name the library entry with ?key= or ?title=")
	}
	e, ok := model.FindLibraryEntry(key, title)
	if !ok {
		return model.LibraryNotFound(key, title)
	}
	writeJSON(w, 200, wireLibraryEntry(e))
	return nil
}

// libraryActivate creates an item from a library entry (201), in the
// collection that holds the entry's kind.
func (s *Server) libraryActivate(w http.ResponseWriter, r *http.Request) error {
	var in api.LibraryRef
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	in.Key, in.Title = strings.TrimSpace(in.Key), strings.TrimSpace(in.Title)
	if in.Key == "" && in.Title == "" {
		return model.BadRequest("name the library entry to activate with key or title")
	}
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	in.OpKey = ""
	res, err := s.store.ActivateLibrary(r.PathValue("ws"), storage.LibraryActivate{Key: in.Key, Title: in.Title,
		Idem: fingerprint(key, r, in)}, actor(r))
	if err != nil {
		return err
	}
	it := wireItem(res.Item)
	out := api.Activation{Item: it, Library: api.LibraryOrigin{Key: res.Entry.Key(), Kind: res.Entry.Kind,
		SeedHash: res.SeedHash, Collection: res.Item.Collection.Slug}}
	if ww := wireWarnings(res.Warnings); ww != nil || res.OptionsAdded != nil {
		out.Warnings = &api.ActivationWarnings{OptionsAdded: res.OptionsAdded}
		if ww != nil {
			out.Warnings.Warnings = *ww
		}
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, 201, out)
	return nil
}

func (s *Server) listPlaybooks(w http.ResponseWriter, r *http.Request) error {
	list, err := s.views.ListPlaybooks(r.PathValue("ws"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, list)
	return nil
}

func (s *Server) getPlaybook(w http.ResponseWriter, r *http.Request) error {
	pb, err := s.views.GetPlaybook(r.PathValue("ws"), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, 200, api.Playbook{Item: wireItem(pb.Item), Status: pb.Status})
	return nil
}

// runPlaybook binds arguments and answers the body; it stores nothing.
func (s *Server) runPlaybook(w http.ResponseWriter, r *http.Request) error {
	var in api.PlaybookRunRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	res, err := s.store.RunPlaybook(r.PathValue("ws"), r.PathValue("ref"),
		storage.PlaybookRun{Args: in.Args, RawArgs: in.RawArgs, AllowDraft: in.AllowDraft})
	if err != nil {
		return err
	}
	v := res.Item
	writeJSON(w, 200, api.PlaybookRun{Ref: v.Ref, Slug: v.Slug, Title: v.Title, Status: res.Status, Body: v.Content,
		Arguments: wireArgSpecs(res.Arguments), BoundArgs: res.Binding.Bound, Unbound: wireUnbound(res.Binding.Unbound), IgnoredArgs: res.Binding.Ignored})
	return nil
}

// matchPlaybook is Pad's LLM playbook router; padd has no decision
// provider, so it answers as Pad does without one, once the text is one
// Pad would send to a provider (PB-03).
func (s *Server) matchPlaybook(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.views.GetWorkspace(r.PathValue("ws")); err != nil {
		return err
	}
	var in api.PlaybookMatchRequest
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Text) == "" {
		return model.BadRequest("text is required: the request to find a playbook for").With("param", "text")
	}
	if err := model.LimitMatchText.Check(in.Text); err != nil {
		return err
	}
	return model.Errorf(model.CodeDecisionProviderUnavailable,
		"playbook match needs an LLM decision provider, and padd has none; pick a playbook from the playbook list by its trigger or invocation slug")
}

// bootstrap answers the agent bootstrap; its dashboard is the caller's,
// as GET .../dashboard would answer it, capped.
func (s *Server) bootstrap(w http.ResponseWriter, r *http.Request) error {
	who, err := viewer(r)
	if err != nil {
		return err
	}
	b, err := s.views.Bootstrap(r.Context(), r.PathValue("ws"), views.DashboardParams{Now: s.now(), Who: who})
	if err != nil {
		return err
	}
	writeJSON(w, 200, wireBootstrap(b))
	return nil
}

// itemContext answers the item's work brief; ?budget= is characters.
func (s *Server) itemContext(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	budget := 0
	if raw := q.Get("budget"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			return model.BadRequest("budget must be a positive number of characters, got %q", raw).With("param", "budget")
		}
		budget = n
	}
	brief, err := s.views.ItemContext(r.PathValue("ws"), r.PathValue("ref"),
		views.ContextQuery{Intent: q.Get("intent"), Role: q.Get("role"), Budget: budget})
	if err != nil {
		return err
	}
	writeJSON(w, 200, brief)
	return nil
}

// patchItem applies exact-text edits to an item's body, or undoes an
// earlier patch; an idempotency key (Idempotency-Key or op_key) makes a
// retry answer the first result.
func (s *Server) patchItem(w http.ResponseWriter, r *http.Request) error {
	var in api.Patch
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	key, err := idemKey(r, in.OpKey)
	if err != nil {
		return err
	}
	in.OpKey = "" // the key names the request; it is not part of it
	patch := storage.PatchRequest{Edits: in.Edits,
		Undo: strings.TrimSpace(in.Undo), ExpectedSeq: in.ExpectedSeq, Idem: fingerprint(key, r, in)}
	if err := checkInput(patch); err != nil {
		return err
	}
	res, err := s.store.PatchItem(r.PathValue("ws"), r.PathValue("ref"), patch, actor(r))
	if err != nil {
		return err
	}
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeJSON(w, 200, res.PatchReply)
	return nil
}
