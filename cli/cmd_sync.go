package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/padd/padd/api"
	"golang.org/x/term"
)

// SyncCmd is `padctl sync`: a workspace linked to a Pad server, kept in
// sync by padd (docs/SYNC.md).
type SyncCmd struct {
	Clone     SyncCloneCmd     `cmd:"" help:"Make a local workspace from a workspace on a Pad server and keep it in sync."`
	Link      SyncLinkCmd      `cmd:"" help:"Link a local workspace to an empty workspace on a Pad server and push everything (again: replace the token)."`
	Status    SyncStatusCmd    `cmd:"" help:"Show how each linked workspace's sync stands."`
	Now       SyncNowCmd       `cmd:"" help:"Exchange with the Pad server now (and retry at once after a failure)."`
	Pause     SyncPauseCmd     `cmd:"" help:"Stop syncing a workspace until resume; local work goes on."`
	Resume    SyncResumeCmd    `cmd:"" help:"Sync a paused workspace again."`
	Unlink    SyncUnlinkCmd    `cmd:"" help:"End a workspace's link to its Pad server; the local items stay."`
	Conflicts SyncConflictsCmd `cmd:"" help:"List the conflicts and set-aside changes sync found."`
	Resolve   SyncResolveCmd   `cmd:"" help:"Settle an item's sync conflicts: keep the local value, the remote one, or a merge."`
	Verify    SyncVerifyCmd    `cmd:"" help:"Compare a linked workspace with its Pad server, entity by entity, and say what differs (exit 1 when something does)."`
}

// syncTokenFlags say where the remote token comes from.
type syncTokenFlags struct {
	TokenFile    string `name:"token-file" placeholder:"FILE" help:"Read the Pad token from this file (- for stdin)."`
	TokenEnv     string `name:"token-env" placeholder:"NAME" help:"Read the Pad token from this environment variable."`
	InsecureHTTP bool   `name:"insecure-http" help:"Allow plain http to a server that is not this machine (the token crosses the network in the clear)."`
}

// syncWaitFlag is clone's and link's --no-wait.
type syncWaitFlag struct {
	NoWait bool `name:"no-wait" help:"Return once padd has the link, without following the first sync."`
}

// What --token-file and resolve's --file read at most (a merged value:
// padd's request body).
const (
	maxTokenFile   = 64 << 10
	maxMergedValue = 2 << 20
)

// readHidden reads a line from the terminal without echo; ok is false
// when stdin is not a terminal. Tests replace it.
var readHidden = func(a *App, prompt string) (line string, ok bool, err error) {
	f, isFile := a.env.Stdin.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return "", false, nil
	}
	fmt.Fprint(a.errw, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(a.errw)
	return string(b), true, err
}

// token reads the token from the file, the variable or the terminal.
// "" with no error means none was given (not on a terminal, or an empty
// answer to a prompt that allowed one: keep the saved token).
func (f syncTokenFlags) token(a *App, server string, saved bool) (string, error) {
	switch {
	case f.TokenFile != "" && f.TokenEnv != "":
		return "", usagef(codeConflictingArgs, "give the token one way: --token-file or --token-env", "--token-file and --token-env together")
	case f.TokenFile != "":
		return f.fromFile(a)
	case f.TokenEnv != "":
		v, ok := a.env.LookupEnv(f.TokenEnv)
		if v = strings.TrimSpace(v); !ok || v == "" {
			return "", failf(codeNoToken, "export the token in that variable, or use --token-file", "the environment variable %s is not set or empty", f.TokenEnv)
		}
		return v, nil
	}
	prompt := "Pad token for " + server + ": "
	if saved {
		prompt = "Pad token for " + server + " (empty: keep the saved one): "
	}
	line, ok, err := readHidden(a, prompt)
	if err != nil {
		return "", fmt.Errorf("read the token from the terminal: %w", err)
	}
	if !ok {
		return "", nil
	}
	return strings.TrimSpace(line), nil
}

func (f syncTokenFlags) fromFile(a *App) (string, error) {
	b, err := readArgFile(a, f.TokenFile, maxTokenFile, "the token")
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", failf(codeNoToken, "the file should hold the token alone", "%s is empty", f.TokenFile)
	}
	return tok, nil
}

// readArgFile reads a file named on the command line (relative to the
// working directory; "-" is stdin), at most limit bytes; what says what
// it should hold.
func readArgFile(a *App, name string, limit int, what string) ([]byte, error) {
	hint := "give the path of a file that holds " + what
	var r io.Reader = a.env.Stdin
	if name != "-" {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.env.Dir, path)
		}
		fh, err := os.Open(path)
		if err != nil {
			return nil, failf(codeBadFile, hint, "cannot read %s: %v", name, err)
		}
		defer fh.Close()
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, failf(codeBadFile, hint, "cannot read %s: %v", name, err)
	}
	if len(b) > limit {
		return nil, failf(codeBadFile, fmt.Sprintf("the file should hold %s alone", what), "%s is larger than %d bytes", name, limit)
	}
	return b, nil
}

// SyncCloneCmd is `sync clone <url> <remote-workspace>`.
type SyncCloneCmd struct {
	URL    string `arg:"" name:"url" help:"The Pad server, e.g. https://pad.example.com."`
	Remote string `arg:"" name:"remote-workspace" help:"The workspace on the server (its slug)."`
	As     string `placeholder:"SLUG" help:"The local workspace's slug (default: the remote's)."`
	syncTokenFlags
	syncWaitFlag
}

// Run asks padd to clone, then follows the clone until it is synced.
func (c *SyncCloneCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	tok, err := c.token(a, c.URL, false)
	if err != nil {
		return err
	}
	if tok == "" {
		return usagef(codeNoToken, "pass --token-file FILE or --token-env NAME, or run it on a terminal to be asked",
			"a clone needs the Pad server's token")
	}
	st, err := cl.SyncClone(ctx, api.SyncClone{URL: c.URL, RemoteWorkspace: c.Remote, As: c.As,
		SyncToken: api.SyncToken{Token: tok, InsecureHTTP: c.InsecureHTTP}})
	if err != nil {
		return syncRefusal(err)
	}
	a.notef("cloning %s from %s into workspace %s", c.Remote, c.URL, st.Workspace)
	return a.followSync(ctx, cl, st, c.NoWait, "cloned")
}

// SyncLinkCmd is `sync link <local-ws> <url> <remote-workspace>`.
type SyncLinkCmd struct {
	Workspace string `arg:"" name:"local-workspace" predictor:"workspace" help:"The local workspace to link."`
	URL       string `arg:"" name:"url" help:"The Pad server, e.g. https://pad.example.com."`
	Remote    string `arg:"" name:"remote-workspace" help:"An empty workspace on the server (its slug)."`
	syncTokenFlags
	syncWaitFlag
}

// Run links the workspace, then follows the first push until synced.
func (c *SyncLinkCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	// A link that exists keeps its saved token when none is given.
	linked := false
	if _, err := cl.SyncStatus(ctx, c.Workspace); err == nil {
		linked = true
	} else if !api.IsNotLinked(err) && !api.IsNotFound(err) {
		return syncRefusal(err)
	}
	tok, err := c.token(a, c.URL, linked)
	if err != nil {
		return err
	}
	if tok == "" && !linked {
		return usagef(codeNoToken, "pass --token-file FILE or --token-env NAME, or run it on a terminal to be asked",
			"linking %s needs the Pad server's token", c.Workspace)
	}
	st, err := cl.SyncLink(ctx, api.SyncLink{Workspace: c.Workspace, URL: c.URL, RemoteWorkspace: c.Remote,
		SyncToken: api.SyncToken{Token: tok, InsecureHTTP: c.InsecureHTTP}})
	if err != nil {
		return syncRefusal(err)
	}
	return a.followSync(ctx, cl, st, c.NoWait, "linked")
}

// followSync prints a clone's or link's progress from padd's sync
// stream until the workspace is synced (or can go no further), then its
// status. noWait prints the status as padd first answered it.
func (a *App) followSync(ctx context.Context, cl *api.Client, st *api.SyncStatus, noWait bool, verb string) error {
	done := func(st *api.SyncStatus) error {
		return a.emit(st, func(w io.Writer) error {
			fmt.Fprintf(w, "%s %s with %s (workspace %s)\n", titleWord(verb), clean(st.Workspace), clean(st.URL), clean(st.RemoteWorkspace))
			return syncStatusView{list: []api.SyncStatus{*st}, now: a.now()}.writeTable(w, a.style)
		}, func(w io.Writer) error {
			return syncStatusView{list: []api.SyncStatus{*st}, now: a.now()}.writeMarkdown(w)
		})
	}
	if noWait {
		return done(st)
	}
	ws, last := st.Workspace, ""
	var final *api.SyncStatus
	errStop := errors.New("stop")
	err := cl.SyncEvents(ctx, func(ev api.SyncEvent) error {
		if ev.Status == nil || ev.Status.Workspace != ws {
			return nil
		}
		s := ev.Status
		if line := syncStateWords(s, a.now()); line != last {
			last = line
			a.notef("%s: %s", ws, line)
		}
		if syncSettled(s) {
			final = s
			return errStop
		}
		return nil
	})
	switch {
	case final != nil:
	case ctx.Err() != nil:
		a.notef("padd goes on with it; `padctl sync status %s` shows how it stands", ws)
		return ctx.Err()
	case errors.Is(err, io.ErrUnexpectedEOF) || api.IsTransport(err):
		return failf(codeSyncUnfollowed, fmt.Sprintf("padd goes on when it is back; `padctl sync status %s` shows how it stands", ws),
			"lost padd while following the sync of %s", ws)
	default:
		return err
	}
	if err := done(final); err != nil {
		return err
	}
	return syncStopped(final)
}

// syncSettled reports a state a clone or link waits for: synced, or one
// it cannot leave by itself soon.
func syncSettled(s *api.SyncStatus) bool {
	switch s.State {
	case api.SyncSynced:
		return !s.Cloning
	case api.SyncOffline, api.SyncTokenRefused, api.SyncRemoteGone, api.SyncPaused:
		return true
	}
	return false
}

// syncStopped is the refusal for a workspace whose sync cannot go on.
func syncStopped(s *api.SyncStatus) error {
	switch s.State {
	case api.SyncOffline:
		e := failf(codeSyncOffline, fmt.Sprintf("padd keeps trying by itself; `padctl sync now %s` retries at once", s.Workspace),
			"%s is offline: the Pad server did not answer", s.Workspace)
		if s.LastError != "" {
			e.Detail = []string{s.LastError}
		}
		return e
	case api.SyncTokenRefused:
		return failf(codeSyncTokenRefused, fmt.Sprintf("run `padctl sync link %s %s %s` again with a new token", s.Workspace, s.URL, s.RemoteWorkspace),
			"the Pad server refused the token of %s", s.Workspace)
	case api.SyncRemoteGone:
		return failf(codeSyncRemoteGone, fmt.Sprintf("`padctl sync unlink %s` keeps the local items; `padctl sync link` links them to another remote workspace", s.Workspace),
			"the remote workspace %s is gone from %s", s.RemoteWorkspace, s.URL)
	}
	return nil
}

// syncRefusal adds a hint to padd's sync refusals.
func syncRefusal(err error) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	e := explain(err)
	switch {
	case ae.Code == api.CodeUnavailable && ae.Details["reason"] == "sync_unavailable":
		e.Hint = "this padd was built without sync; `padctl daemon restart` runs the padd beside padctl"
	case api.IsNotLinked(err):
		e.Hint = "`padctl sync status` lists the linked workspaces; `padctl sync link` links one"
	case ae.Details["field"] == "url" && ae.Details["reason"] == "insecure_http":
		e.Hint = "use the server's https:// address, or pass --insecure-http if you trust the network"
	}
	return e
}

func titleWord(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// syncWorkspace is a sync command's workspace: the argument, else the
// current workspace.
func (a *App) syncWorkspace(ctx context.Context, arg string) (*api.Client, string, error) {
	cl, err := a.Client(ctx)
	if err != nil {
		return nil, "", err
	}
	if arg != "" {
		return cl, arg, nil
	}
	ws, err := a.Workspace(ctx)
	return cl, ws, err
}

// SyncStatusCmd is `sync status [ws]`.
type SyncStatusCmd struct {
	Ws string `arg:"" optional:"" name:"workspace" predictor:"workspace" help:"Only this workspace (default: every linked workspace)."`
}

// Run prints the status of one linked workspace, or of every one.
func (c *SyncStatusCmd) Run(ctx context.Context, a *App) error {
	cl, err := a.Client(ctx)
	if err != nil {
		return err
	}
	// Bare, every linked workspace: the current one may be unlinked, and
	// then its refusal's hint would point back here.
	ws := c.Ws
	var list []api.SyncStatus
	var jsonValue any
	if ws == "" {
		if list, err = cl.SyncStatuses(ctx); err != nil {
			return syncRefusal(err)
		}
		jsonValue = api.SyncStatuses{Workspaces: list}
	} else {
		st, err := cl.SyncStatus(ctx, ws)
		if err != nil {
			return syncRefusal(err)
		}
		list, jsonValue = []api.SyncStatus{*st}, st
	}
	v := syncStatusView{list: list, now: a.now()}
	return a.emit(jsonValue, func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// syncActionCmd is now, pause and resume.
type syncActionCmd struct {
	Ws string `arg:"" optional:"" name:"workspace" predictor:"workspace" help:"The linked workspace (default: the current one)."`
}

func (c *syncActionCmd) run(ctx context.Context, a *App, act func(*api.Client) func(context.Context, string) (*api.SyncStatus, error)) error {
	cl, ws, err := a.syncWorkspace(ctx, c.Ws)
	if err != nil {
		return err
	}
	st, err := act(cl)(ctx, ws)
	if err != nil {
		return syncRefusal(err)
	}
	return a.emit(st, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s: %s\n", clean(st.Workspace), a.style.paint(syncStateColor(st.State), syncStateWords(st, a.now())))
		return err
	}, nil)
}

// SyncNowCmd is `sync now [ws]`.
type SyncNowCmd struct{ syncActionCmd }

// Run asks for an exchange now.
func (c *SyncNowCmd) Run(ctx context.Context, a *App) error {
	return c.run(ctx, a, func(cl *api.Client) func(context.Context, string) (*api.SyncStatus, error) { return cl.SyncNow })
}

// SyncPauseCmd is `sync pause [ws]`.
type SyncPauseCmd struct{ syncActionCmd }

// Run pauses the workspace's sync.
func (c *SyncPauseCmd) Run(ctx context.Context, a *App) error {
	return c.run(ctx, a, func(cl *api.Client) func(context.Context, string) (*api.SyncStatus, error) { return cl.SyncPause })
}

// SyncResumeCmd is `sync resume [ws]`.
type SyncResumeCmd struct{ syncActionCmd }

// Run resumes the workspace's sync.
func (c *SyncResumeCmd) Run(ctx context.Context, a *App) error {
	return c.run(ctx, a, func(cl *api.Client) func(context.Context, string) (*api.SyncStatus, error) { return cl.SyncResume })
}

// SyncUnlinkCmd is `sync unlink [ws]`.
type SyncUnlinkCmd struct {
	Ws string `arg:"" optional:"" name:"workspace" predictor:"workspace" help:"The linked workspace (default: the current one)."`
}

// Run ends the link; the local data stays.
func (c *SyncUnlinkCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.syncWorkspace(ctx, c.Ws)
	if err != nil {
		return err
	}
	if err := cl.SyncUnlink(ctx, ws); err != nil {
		return syncRefusal(err)
	}
	return a.emit(map[string]any{"workspace": ws, "unlinked": true}, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "Unlinked %s: its items stay here and are no longer synced.\n", clean(ws))
		return err
	}, nil)
}

// SyncConflictsCmd is `sync conflicts [ws]`.
type SyncConflictsCmd struct {
	Ws  string `arg:"" optional:"" name:"workspace" predictor:"workspace" help:"The linked workspace (default: the current one)."`
	All bool   `help:"Also the settled ones."`
}

// Run lists the conflicts and set-aside changes.
func (c *SyncConflictsCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.syncWorkspace(ctx, c.Ws)
	if err != nil {
		return err
	}
	list, err := cl.SyncConflicts(ctx, ws, c.All)
	if err != nil {
		return syncRefusal(err)
	}
	if list == nil {
		list = []api.SyncConflict{}
	}
	v := syncConflictsView{list: list, now: a.now(), all: c.All}
	return a.emit(api.SyncConflicts{Conflicts: list}, func(w io.Writer) error { return v.writeTable(w, a.style) }, v.writeMarkdown)
}

// SyncResolveCmd is `sync resolve <ref> --keep local|remote|merged`.
type SyncResolveCmd struct {
	Ref  string `arg:"" help:"The item (ref, slug or id) whose conflicts to settle."`
	Keep string `required:"" enum:"local,remote,merged" placeholder:"local|remote|merged" help:"local: your value goes to the item and the server; remote: the server's value (already in the item) stays; merged: the value in --file goes to both."`
	File string `placeholder:"FILE" help:"With --keep merged: the merged value (the text of a title or content, else the part's JSON value); - reads stdin."`
	ID   int64  `name:"id" placeholder:"N" help:"Only this conflict (its id in sync conflicts); default: all of the item's open ones."`
}

// Run settles the item's open conflicts (or the one named by --id).
func (c *SyncResolveCmd) Run(ctx context.Context, a *App) error {
	if c.Keep == api.KeepMerged && c.File == "" {
		return usagef(codeMissingValue, "write the merged value to a file and pass --file FILE (or --file - to read stdin)", "--keep merged needs --file")
	}
	if c.Keep != api.KeepMerged && c.File != "" {
		return usagef(codeConflictingArgs, "--file is for --keep merged; --keep local or remote takes a side as it is", "--file with --keep %s", c.Keep)
	}
	cl, ws, err := a.syncWorkspace(ctx, "")
	if err != nil {
		return err
	}
	in := api.SyncResolve{Ref: c.Ref, ID: c.ID, Keep: c.Keep}
	if c.Keep == api.KeepMerged {
		if in.Value, err = c.mergedValue(ctx, a, cl, ws); err != nil {
			return err
		}
	}
	settled, err := cl.SyncResolve(ctx, ws, in)
	if err != nil {
		return syncRefusal(err)
	}
	if settled == nil {
		settled = []api.SyncConflict{}
	}
	return a.emit(api.SyncConflicts{Conflicts: settled}, func(w io.Writer) error {
		parts := make([]string, 0, len(settled))
		for _, s := range settled {
			parts = append(parts, firstNonEmpty(s.Part, s.Kind))
		}
		noun := "conflicts"
		if len(settled) == 1 {
			noun = "conflict"
		}
		_, err := fmt.Fprintf(w, "Settled %d %s of %s (%s): kept %s.\n", len(settled), noun, clean(c.Ref), clean(strings.Join(parts, ", ")), c.Keep)
		return err
	}, nil)
}

// mergedValue reads --file as the value of the conflict it settles: a
// title's or content's text goes as a JSON string, any other part's
// value as the JSON the file holds.
func (c *SyncResolveCmd) mergedValue(ctx context.Context, a *App, cl *api.Client, ws string) (json.RawMessage, error) {
	open, err := cl.SyncConflicts(ctx, ws, false)
	if err != nil {
		return nil, syncRefusal(err)
	}
	var mine []api.SyncConflict
	for _, k := range open {
		if k.Kind == "conflict" && strings.EqualFold(k.Ref, c.Ref) && (c.ID == 0 || k.ID == c.ID) {
			mine = append(mine, k)
		}
	}
	switch {
	case len(mine) == 0:
		return nil, failf(codeNoConflict, fmt.Sprintf("`padctl sync conflicts %s` lists the open ones", ws), "%s has no open conflict to merge", c.Ref)
	case len(mine) > 1:
		ids := make([]string, len(mine))
		for i, k := range mine {
			ids[i] = fmt.Sprintf("--id %d (%s)", k.ID, k.Part)
		}
		return nil, usagef(codeAmbiguousConflict, "pick one: "+strings.Join(ids, ", "), "%s has %d open conflicts; a merged value settles one", c.Ref, len(mine))
	}
	b, err := readArgFile(a, c.File, maxMergedValue, "the merged value")
	if err != nil {
		return nil, err
	}
	if part := mine[0].Part; part == "title" || part == "content" {
		if part == "title" {
			b = bytes.TrimRight(b, "\r\n")
		}
		return json.Marshal(string(b))
	}
	if !json.Valid(b) {
		return nil, failf(codeBadValue, "the file should hold the part's value as JSON, e.g. \"done\" or [\"a\",\"b\"]",
			"the merged value of %s is not JSON", mine[0].Part)
	}
	return json.RawMessage(bytes.TrimSpace(b)), nil
}

// syncStateWords says a status's state as `sync status` shows it.
func syncStateWords(s *api.SyncStatus, now time.Time) string {
	switch s.State {
	case api.SyncSynced:
		return "synced"
	case api.SyncPushing:
		return fmt.Sprintf("pushing %d", s.Pending)
	case api.SyncPulling:
		if s.Cloning {
			return "pulling (cloning)"
		}
		return "pulling"
	case api.SyncOffline:
		words := "offline"
		if s.OfflineSince != nil {
			words += " since " + stamp(*s.OfflineSince)
		}
		if s.NextTry != nil {
			if d := s.NextTry.Sub(now); d > 0 {
				words += ", next try in " + roundWait(d)
			} else {
				words += ", trying now"
			}
		}
		return words
	case api.SyncTokenRefused:
		return "token refused: run `padctl sync link` again with a new token"
	case api.SyncRemoteGone:
		return "remote workspace gone"
	case api.SyncPaused:
		return "paused (`padctl sync resume` restarts it)"
	}
	return s.State
}

// roundWait says a wait to the second below a minute, else to the minute.
func roundWait(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int((d+time.Second-1)/time.Second)) + "s"
	}
	return (d + 30*time.Second).Truncate(time.Minute).String()
}

func syncStateColor(state string) string {
	switch state {
	case api.SyncSynced:
		return ansiGreen
	case api.SyncPushing, api.SyncPulling:
		return ansiCyan
	case api.SyncOffline, api.SyncPaused:
		return ansiYellow
	case api.SyncTokenRefused, api.SyncRemoteGone:
		return ansiRed
	}
	return ""
}

// syncStatusView renders linked workspaces' statuses.
type syncStatusView struct {
	list []api.SyncStatus
	now  time.Time
}

func (v syncStatusView) pairs(s *api.SyncStatus, markdown bool) *keyValues {
	kv := &keyValues{}
	when := func(t time.Time) string {
		if markdown {
			return stamp(t)
		}
		return stamp(t) + " (" + ago(t, v.now) + ")"
	}
	kv.add("state", cell{text: clean(syncStateWords(s, v.now)), color: syncStateColor(s.State)})
	kv.add("pending", plain(plural(s.Pending, "local change")+" to push"))
	if s.Conflicts > 0 {
		kv.add("conflicts", cell{text: clean(fmt.Sprintf("%d open: `padctl sync conflicts %s`", s.Conflicts, s.Workspace)), color: ansiRed})
	} else {
		kv.add("conflicts", plain("none"))
	}
	if s.SetAside > 0 {
		kv.add("set aside", cell{text: clean(fmt.Sprintf("%s the server refused: `padctl sync conflicts %s`", plural(s.SetAside, "change"), s.Workspace)), color: ansiYellow})
	}
	if s.State == api.SyncSynced || s.State == api.SyncPushing || s.State == api.SyncPulling {
		if s.Live {
			kv.add("updates", plain("live: remote changes arrive as they happen"))
		} else {
			kv.add("updates", plain("not live: padd reads remote changes when it next syncs"))
		}
	}
	if s.LastExchange != nil {
		kv.add("last exchange", plain(when(*s.LastExchange)))
	} else {
		kv.add("last exchange", plain("never"))
	}
	if s.Waiting != "" && s.NextTry != nil {
		kv.addWhole("waiting", plain(s.Waiting+", until "+s.NextTry.UTC().Format("15:04:05 UTC")))
	}
	if s.LastError != "" && s.State != api.SyncSynced {
		kv.addWhole("last error", plain(strings.TrimSpace(clean(s.LastError))))
	}
	if len(s.NotSynced) > 0 {
		kv.add("not synced", plain(clean(strings.Join(s.NotSynced, ", "))+": kept on the side that has them (they travel in bundles)"))
	}
	kv.add("remote version", plain(s.RemoteVersion))
	caps := append([]string(nil), s.Capabilities...)
	sort.Strings(caps)
	kv.add("capabilities", plain(strings.Join(caps, ", ")))
	return kv
}

func (v syncStatusView) heading(s *api.SyncStatus) string {
	return fmt.Sprintf("%s ⇄ %s  workspace %s", clean(s.Workspace), clean(s.URL), clean(s.RemoteWorkspace))
}

func (v syncStatusView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No workspace is linked to a Pad server. `padctl sync clone <url> <workspace>` makes one; `padctl sync link` links one.")
		return err
	}
	for i := range v.list {
		s := &v.list[i]
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, st.paint(ansiBold, v.heading(s)))
		v.pairs(s, false).write(w, st, "  ")
	}
	return nil
}

func (v syncStatusView) writeMarkdown(w io.Writer) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "_No workspace is linked to a Pad server._")
		return err
	}
	for i := range v.list {
		s := &v.list[i]
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "## %s\n\n", mdCell(v.heading(s)))
		if err := v.pairs(s, true).writeMarkdown(w); err != nil {
			return err
		}
	}
	return nil
}

// syncConflictsView renders conflicts and set-aside changes.
type syncConflictsView struct {
	list []api.SyncConflict
	now  time.Time
	all  bool
}

func (v syncConflictsView) table(markdown bool) *table {
	cols := []column{{header: "ID"}, {header: "REF"}, {header: "PART"}, {header: "LOCAL", flex: true, min: 8},
		{header: "REMOTE", flex: true, min: 8}, {header: "WHEN"}}
	if v.all {
		cols = append(cols, column{header: "STATE"})
	}
	t := &table{cols: cols}
	for _, k := range v.list {
		part, local, remote := k.Part, excerptValue(k.Local), excerptValue(k.Remote)
		if k.Kind == "set_aside" {
			part, local, remote = "set aside", k.Reason, ""
		}
		when := ago(k.At, v.now)
		if markdown {
			when = stamp(k.At)
		}
		row := []cell{plain(strconv.FormatInt(k.ID, 10)), {text: clean(k.Ref), color: ansiBold}, plain(part),
			plain(local), plain(remote), {text: when, color: ansiDim}}
		if v.all {
			row = append(row, plain(k.State))
		}
		t.add(row...)
	}
	return t
}

// writeTable shows each conflict as a block with both values whole
// (wrapped, never cut) and content as a diff, since the user decides
// between them from what is shown.
func (v syncConflictsView) writeTable(w io.Writer, st Style) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "No open conflicts.")
		return err
	}
	for i, k := range v.list {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := []string{"#" + strconv.FormatInt(k.ID, 10)}
		if k.Ref != "" {
			head = append(head, st.paint(ansiBold, clean(k.Ref)))
		}
		if k.Title != "" {
			head = append(head, clean(k.Title))
		}
		part := k.Part
		if k.Kind == "set_aside" {
			part = "set aside"
		}
		head = append(head, "· "+clean(part), "· "+st.paint(ansiDim, ago(k.At, v.now)))
		if v.all {
			head = append(head, "· "+clean(k.State))
		}
		fmt.Fprintln(w, strings.Join(head, " "))
		kv := &keyValues{}
		switch {
		case k.Kind == "set_aside":
			kv.addWhole("reason", plain(k.Reason))
			if len(k.Local) > 0 {
				kv.addWhole("kept", plain(excerptValue(k.Local)))
			}
		case k.Part == "content":
			kv.write(w, st, "  ")
			writeContentDiff(w, st, excerptValue(k.Local), excerptValue(k.Remote))
			continue
		default:
			kv.addWhole("local", plain(excerptValue(k.Local)))
			kv.addWhole("remote", plain(excerptValue(k.Remote)))
		}
		kv.write(w, st, "  ")
	}
	_, err := fmt.Fprintln(w, "\n"+st.paint(ansiDim, "The remote's value is in each item; `padctl sync resolve <ref> --keep local|remote|merged` settles one."))
	return err
}

// writeContentDiff shows two versions of an item's content as lines
// both keep, lines only padd's has (-) and lines only the remote's has
// (+): the lines around the first and after the last difference are
// common, the rest is shown whole from each side.
func writeContentDiff(w io.Writer, st Style, local, remote string) {
	a, b := strings.Split(local, "\n"), strings.Split(remote, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	fmt.Fprintln(w, "  "+st.paint(ansiDim, "content: - padd's, + the remote's"))
	line := func(mark, color, text string) {
		fmt.Fprintln(w, "  "+st.paint(color, mark+" "+clean(text)))
	}
	for _, l := range a[:pre] {
		line(" ", "", l)
	}
	for _, l := range a[pre : len(a)-suf] {
		line("-", ansiRed, l)
	}
	for _, l := range b[pre : len(b)-suf] {
		line("+", ansiGreen, l)
	}
	for _, l := range a[len(a)-suf:] {
		line(" ", "", l)
	}
}

func (v syncConflictsView) writeMarkdown(w io.Writer) error {
	if len(v.list) == 0 {
		_, err := fmt.Fprintln(w, "_No open conflicts._")
		return err
	}
	return v.table(true).writeMarkdown(w)
}

// excerptValue is a conflict's value for a table cell: a JSON string's
// text, else the compact JSON; absent reads "(none)".
func excerptValue(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "(none)"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// itemConflictMark is the line `item show` adds for an item with open
// sync conflicts, "" for none. One request: a workspace that is not
// linked (or a padd without sync) answers an error, which means no mark.
func itemConflictMark(ctx context.Context, cl *api.Client, ws string, it *api.Item) ([]api.SyncConflict, string) {
	list, err := cl.SyncConflicts(ctx, ws, false)
	if err != nil {
		return nil, ""
	}
	var mine []api.SyncConflict
	var parts []string
	for _, k := range list {
		if k.Ref != "" && strings.EqualFold(k.Ref, it.Ref) {
			mine = append(mine, k)
			parts = append(parts, firstNonEmpty(k.Part, k.Kind))
		}
	}
	if len(mine) == 0 {
		return nil, ""
	}
	return mine, fmt.Sprintf("%s (%s): `padctl sync conflicts` shows them", plural(len(mine), "open conflict"), strings.Join(parts, ", "))
}

// SyncVerifyCmd is `sync verify [ws]`.
type SyncVerifyCmd struct {
	Ws string `arg:"" optional:"" name:"workspace" predictor:"workspace" help:"The linked workspace (default: the current one)."`
}

// verifyProgress is how often at most `sync verify` says how far it has
// come (on stderr).
const verifyProgress = time.Second

// Run compares the workspace with the remote and prints each difference;
// it fails (exit 1, sync_differs) when they are not equal.
func (c *SyncVerifyCmd) Run(ctx context.Context, a *App) error {
	cl, ws, err := a.syncWorkspace(ctx, c.Ws)
	if err != nil {
		return err
	}
	var last time.Time
	v, err := cl.SyncVerify(ctx, ws, func(done, total int) {
		if total > 0 && done < total && time.Since(last) >= verifyProgress {
			last = time.Now()
			a.notef("verifying %s: read %s on the remote", ws, progressText(done, total))
		}
	})
	if err != nil {
		return syncRefusal(err)
	}
	view := syncVerifyView{v: v}
	if err := a.emit(v, func(w io.Writer) error { return view.writeTable(w, a.style) }, view.writeMarkdown); err != nil {
		return err
	}
	if v.Equal {
		return nil
	}
	hint := fmt.Sprintf("`padctl sync now %s` exchanges at once; run the verify again once it is synced", v.Workspace)
	if len(v.Differences) > 0 && v.Pending == 0 {
		hint = fmt.Sprintf("`padctl sync now %s` brings what the remote has; what stays different is shown above", v.Workspace)
	}
	return failf(codeSyncDiffers, hint, "%s differs from its remote: %s", v.Workspace, syncVerifyCount(v))
}

// syncVerifyCount says how much differs, in words.
func syncVerifyCount(v *api.SyncVerify) string {
	var parts []string
	if n := len(v.Differences); n > 0 || v.Pending == 0 {
		parts = append(parts, plural(n, "difference"))
	}
	if v.Pending > 0 {
		parts = append(parts, plural(v.Pending, "local change")+" not pushed yet")
	}
	return strings.Join(parts, ", ")
}

// syncVerifyView renders a verify: each difference as a sentence (a
// content difference with its lines), those open conflicts explain,
// the notes, then a summary.
type syncVerifyView struct{ v *api.SyncVerify }

func (s syncVerifyView) summary() string {
	v := s.v
	c := v.Checked
	compared := fmt.Sprintf("compared %s, %s, %s, %s, %s", plural(c.Collections, "collection"), plural(c.Items, "item"),
		plural(c.Comments, "comment"), plural(c.Links, "link"), plural(c.Attachments, "attachment"))
	where := fmt.Sprintf("%s (workspace %s)", v.URL, v.RemoteWorkspace)
	var line string
	if len(v.Differences) == 0 {
		line = fmt.Sprintf("%s is the same here and on %s: %s", v.Workspace, where, compared)
	} else {
		line = fmt.Sprintf("%s differs from %s: %s; %s", v.Workspace, where, plural(len(v.Differences), "difference"), compared)
	}
	if n := len(v.Conflicts); n > 0 {
		line += fmt.Sprintf("; %s explained by open conflicts", plural(n, "difference"))
	}
	return line + "."
}

func (s syncVerifyView) pendingLine() string {
	if s.v.Pending == 0 {
		return ""
	}
	return plural(s.v.Pending, "local change") + " not pushed yet; run again once synced."
}

func (s syncVerifyView) writeTable(w io.Writer, st Style) error {
	each := func(ds []api.SyncDifference, indent string) {
		for _, d := range ds {
			fmt.Fprintln(w, indent+clean(d.Words))
			if d.Part == "content" && d.Kind == api.VerifyItem {
				writeContentDiff(w, st, excerptValue(d.Local), excerptValue(d.Remote))
			}
		}
	}
	each(s.v.Differences, "")
	if len(s.v.Conflicts) > 0 {
		if len(s.v.Differences) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, st.paint(ansiBold, fmt.Sprintf("Explained by open conflicts (`padctl sync conflicts %s`):", clean(s.v.Workspace))))
		each(s.v.Conflicts, "  ")
	}
	if len(s.v.Differences)+len(s.v.Conflicts) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range s.v.Notes {
		fmt.Fprintln(w, st.paint(ansiDim, "note: "+clean(n)))
	}
	color := ansiGreen
	if !s.v.Equal {
		color = ansiRed
	}
	fmt.Fprintln(w, st.paint(color, clean(s.summary())))
	if p := s.pendingLine(); p != "" {
		fmt.Fprintln(w, st.paint(ansiYellow, p))
	}
	return nil
}

func (s syncVerifyView) writeMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## %s\n\n", mdCell(s.summary()))
	if p := s.pendingLine(); p != "" {
		fmt.Fprintf(w, "%s\n\n", mdCell(p))
	}
	list := func(heading string, ds []api.SyncDifference) {
		if len(ds) == 0 {
			return
		}
		fmt.Fprintf(w, "### %s\n\n", heading)
		for _, d := range ds {
			fmt.Fprintf(w, "- %s\n", mdCell(d.Words))
		}
		fmt.Fprintln(w)
	}
	list("Differences", s.v.Differences)
	list("Explained by open conflicts", s.v.Conflicts)
	for _, n := range s.v.Notes {
		fmt.Fprintf(w, "_%s_\n\n", mdCell(n))
	}
	return nil
}
