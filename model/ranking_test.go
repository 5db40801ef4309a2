package model_test

import (
	"sort"
	"testing"
	"time"

	"github.com/padd/padd/model"
)

func TestPriorityRank(t *testing.T) {
	for v, want := range map[string]model.Rank{
		"critical": model.RankCritical, "Urgent": model.RankCritical, " blocker ": model.RankCritical, "P0": model.RankCritical,
		"high": model.RankHigh, "major": model.RankHigh,
		"medium": model.RankMedium, "normal": model.RankMedium,
		"low": model.RankLow, "trivial": model.RankLow, "p4": model.RankLow,
		"": model.RankNone, "someday": model.RankNone, "nice-to-have": model.RankNone,
	} {
		if got := model.PriorityRank(v); got != want {
			t.Errorf("PriorityRank(%q) = %d, want %d", v, got, want)
		}
	}
}

func TestRankKey(t *testing.T) {
	s := func(keys ...string) model.Schema {
		var out model.Schema
		for _, k := range keys {
			out.Fields = append(out.Fields, model.FieldDef{Key: k, Type: model.TypeSelect})
		}
		return out
	}
	for _, tc := range []struct {
		schema model.Schema
		want   string
	}{
		{s("status", "priority"), "priority"},
		{s("severity", "priority"), "priority"},
		{s("status", "severity"), "severity"},
		{s("status", "impact"), ""},
	} {
		if got := model.RankKey(tc.schema); got != tc.want {
			t.Errorf("RankKey(%v) = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

func TestTierOf(t *testing.T) {
	for _, tc := range []struct {
		status       string
		rank         model.Rank
		ranked, mine bool
		want         model.Tier
		ok           bool
	}{
		{"open", model.RankLow, true, true, model.TierMine, true},
		{"in-progress", model.RankLow, true, false, model.TierInProgress, true},
		{"in_review", model.RankNone, false, false, model.TierInProgress, true}, // unranked collections still offer work in flight
		{"open", model.RankCritical, true, false, model.TierUrgent, true},
		{"new", model.RankHigh, true, false, model.TierUrgent, true},
		{"open", model.RankMedium, true, false, model.TierBacklog, true},
		{"new", model.RankNone, true, false, model.TierBacklog, true}, // an initial status counts as open
		{"open", model.RankNone, false, false, 0, false},
	} {
		got, ok := model.TierOf(tc.status, tc.rank, tc.ranked, tc.mine)
		if got != tc.want || ok != tc.ok {
			t.Errorf("TierOf(%q, %d, ranked %v, mine %v) = %v %v, want %v %v", tc.status, tc.rank, tc.ranked, tc.mine, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTierRanksCoverTiers: every rank a tier can place is one it draws.
func TestTierRanksCoverTiers(t *testing.T) {
	for _, ranked := range []bool{true, false} {
		for r := model.RankCritical; r <= model.RankNone; r++ {
			for _, status := range []string{"open", "in-progress"} {
				tier, ok := model.TierOf(status, r, ranked, false)
				if !ok {
					continue
				}
				found := false
				for _, tr := range model.TierRanks(tier) {
					found = found || tr == r
				}
				if !found {
					t.Errorf("TierOf(%q, %d) = %v, whose ranks %v leave it out", status, r, tier, model.TierRanks(tier))
				}
			}
		}
	}
}

func TestCandidateOrder(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	want := []model.Candidate{
		{ID: "mine", Tier: model.TierMine, Rank: model.RankLow},
		{ID: "pinned-flight", Tier: model.TierInProgress, Rank: model.RankCritical, Pinned: true, Updated: at(1)},
		{ID: "flight-new", Tier: model.TierInProgress, Rank: model.RankCritical, Updated: at(9)},
		{ID: "flight-old", Tier: model.TierInProgress, Rank: model.RankCritical, Updated: at(2)},
		{ID: "flight-high", Tier: model.TierInProgress, Rank: model.RankHigh, Updated: at(9)},
		{ID: "urgent-old", Tier: model.TierUrgent, Rank: model.RankCritical, Updated: at(1)},
		{ID: "urgent-new-b", Tier: model.TierUrgent, Rank: model.RankCritical, Updated: at(5)},
		{ID: "urgent-new-a", Tier: model.TierUrgent, Rank: model.RankCritical, Updated: at(5)},
		{ID: "backlog", Tier: model.TierBacklog, Rank: model.RankMedium, Updated: at(1)},
		{ID: "backlog-none", Tier: model.TierBacklog, Rank: model.RankNone, Updated: at(0)},
	}
	got := append([]model.Candidate(nil), want...)
	for i, j := 0, len(got)-1; i < j; i, j = i+1, j-1 {
		got[i], got[j] = got[j], got[i]
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Before(got[j]) })
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Fatalf("position %d: %s, want %s (order %v)", i, got[i].ID, want[i].ID, got)
		}
	}
}

func TestSuggestionReason(t *testing.T) {
	for _, tc := range []struct {
		tier                     model.Tier
		status, rank, plan, want string
	}{
		{model.TierInProgress, "in-progress", "high", "Ship v1", `In-progress task in active plan "Ship v1" (high priority)`},
		{model.TierInProgress, "in_review", "", "", "In review task"},
		{model.TierUrgent, "open", "critical", "", "Open task (critical priority)"},
		{model.TierMine, "open", "low", "", "You hold the lease on this task (low priority)"},
	} {
		if got := model.SuggestionReason(tc.tier, "task", tc.status, tc.rank, tc.plan); got != tc.want {
			t.Errorf("reason = %q, want %q", got, tc.want)
		}
	}
}

func TestNoun(t *testing.T) {
	for name, want := range map[string]string{"Tasks": "task", "Stories": "story", "Bugs": "bug", "Process": "process", "": "item"} {
		if got := model.Noun(&model.Collection{Name: name}); got != want {
			t.Errorf("Noun(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestStalledAndOverdue(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		status  string
		updated time.Time
		want    bool
	}{
		{"in-progress", now.Add(-73 * time.Hour), true},
		{"in-progress", now.Add(-71 * time.Hour), false},
		{"exploring", now.Add(-30 * 24 * time.Hour), true},
		{"open", now.Add(-30 * 24 * time.Hour), false}, // never started is not stalled
	} {
		if got := model.Stalled(tc.status, tc.updated, now, model.StalledAfter); got != tc.want {
			t.Errorf("Stalled(%q, %v) = %v", tc.status, tc.updated, got)
		}
	}
	if got := model.StalledReason(now.Add(-49*time.Hour), now); got != "In progress for 2 days with no updates" {
		t.Errorf("reason %q", got)
	}
	if got := model.StalledReason(now.Add(-25*time.Hour), now); got != "In progress for 1 day with no updates" {
		t.Errorf("reason %q", got)
	}
	fields := map[string]string{"due_date": "2026-12-01", "end_date": "2026-11-29T23:00:00-05:00"}
	day, key := model.EarliestDue(func(k string) (string, bool) { v, ok := fields[k]; return v, ok })
	if day != "2026-11-30" || key != "end_date" {
		t.Fatalf("EarliestDue = %q %q", day, key)
	}
	for _, tc := range []struct {
		day, today string
		want       bool
	}{{"2026-11-29", "2026-11-30", true}, {"2026-11-30", "2026-11-30", false}, {"", "2026-11-30", false}} {
		if got := model.Overdue(tc.day, tc.today); got != tc.want {
			t.Errorf("Overdue(%q, %q) = %v", tc.day, tc.today, got)
		}
	}
	if _, ok := model.DueDay("next week"); ok {
		t.Error("DueDay read prose as a day")
	}
}

func TestReportWindowAndZone(t *testing.T) {
	for _, tc := range []struct {
		in, name, gran string
		days           int
	}{
		{"day", "day", "hour", 1}, {"week", "week", "day", 7}, {"2wk", "2wk", "day", 14}, {"month", "month", "day", 30},
		{"", "week", "day", 7}, {"fortnight", "week", "day", 7},
	} {
		name, lookback, gran := model.ReportWindow(tc.in)
		if name != tc.name || gran != tc.gran || lookback != time.Duration(tc.days)*24*time.Hour {
			t.Errorf("ReportWindow(%q) = %s %v %s", tc.in, name, lookback, gran)
		}
	}
	if loc, err := model.ReportZone(""); err != nil || loc != time.UTC {
		t.Errorf("empty tz = %v %v", loc, err)
	}
	if loc, err := model.ReportZone("Asia/Tokyo"); err != nil || loc.String() != "Asia/Tokyo" {
		t.Errorf("Asia/Tokyo = %v %v", loc, err)
	}
	for _, tz := range []string{"Local", "Nowhere/Else", "../etc/passwd"} {
		wantErr(t, zoneErr(tz), model.CodeInvalidTZ, 400, map[string]any{"tz": tz})
	}
}

func zoneErr(tz string) error { _, err := model.ReportZone(tz); return err }

func TestCatchUpRules(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 500, time.UTC)
	floor := time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)
	recent := now.Add(-time.Hour)
	old := now.Add(-30 * 24 * time.Hour)
	for _, tc := range []struct {
		cursor *time.Time
		since  time.Time
		capped bool
	}{{nil, floor, true}, {&old, floor, true}, {&recent, model.Truncate1s(recent), false}} {
		since, capped := model.CatchUpSince(tc.cursor, now)
		if !since.Equal(tc.since) || capped != tc.capped {
			t.Errorf("CatchUpSince(%v) = %v %v, want %v %v", tc.cursor, since, capped, tc.since, tc.capped)
		}
	}
	user := model.UserActor(model.SourceCLI)
	claude := model.Actor{Kind: model.ActorAgent, Name: "claude"}
	codex := model.Actor{Kind: model.ActorAgent, Name: "codex"}
	for _, tc := range []struct {
		a, caller model.Actor
		own       bool
	}{
		{user, user, true}, {claude, user, false}, {claude, claude, true}, {codex, claude, false}, {user, claude, false},
	} {
		if got := model.OwnAction(tc.a, tc.caller); got != tc.own {
			t.Errorf("OwnAction(%v by %v) = %v", tc.a, tc.caller, got)
		}
	}
}

func TestSuggestsWork(t *testing.T) {
	no := false
	now := time.Now()
	for _, tc := range []struct {
		c    model.Collection
		want bool
	}{
		{model.Collection{}, true},
		{model.Collection{IsSystem: true}, false},
		{model.Collection{Settings: model.Settings{TracksWork: &no}}, false},
		{model.Collection{ArchivedAt: &now}, false},
	} {
		if got := model.SuggestsWork(&tc.c); got != tc.want {
			t.Errorf("SuggestsWork(%+v) = %v", tc.c, got)
		}
	}
}
