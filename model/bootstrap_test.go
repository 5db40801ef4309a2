package model_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/model"
)

func TestCapDashboard(t *testing.T) {
	items := make([]model.DashboardItem, 7)
	d := &model.Dashboard{ActiveItems: items, ActivePlans: make([]model.DashboardPlan, 5),
		Attention: make([]model.DashboardNotice, 6), RecentActivity: make([]model.DashboardRecent, 10)}
	c := model.CapDashboard(d)
	if len(c.ActiveItems) != 5 || c.ActiveItemsOverflowCount != 2 || len(c.ActivePlans) != 5 || c.ActivePlansOverflowCount != 0 ||
		len(c.Attention) != 5 || c.AttentionOverflowCount != 1 || len(c.RecentActivity) != 5 || c.RecentActivityOverflowCount != 5 {
		t.Fatalf("capped %+v", c)
	}
	if len(d.ActiveItems) != 7 || len(d.RecentActivity) != 10 {
		t.Fatal("CapDashboard changed the dashboard it capped")
	}
	b, _ := json.Marshal(c)
	if !strings.Contains(string(b), `"active_items_overflow_count":2`) || strings.Contains(string(b), "active_plans_overflow_count") ||
		!strings.Contains(string(b), `"summary":`) {
		t.Fatalf("wire shape %s", b)
	}
}

func TestSlimSchema(t *testing.T) {
	s := model.Schema{Fields: []model.FieldDef{
		{Key: "due_date", Label: "Due Date", Type: model.TypeDate},
		{Key: "trigger", Label: "When", Type: model.TypeSelect, Options: []string{"always"}},
	}}
	b, _ := json.Marshal(model.SlimSchema(s))
	want := `{"fields":[{"key":"due_date","type":"date"},{"key":"trigger","type":"select","options":["always"],"label":"When"}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
