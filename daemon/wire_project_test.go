package daemon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/padd/padd/model"
	"github.com/padd/padd/storage/views"
)

// TestBootstrapDashboardWire holds the capped dashboard's wire shape: the
// overflow counts beside the dashboard's own members, each left out when
// nothing was cut.
func TestBootstrapDashboardWire(t *testing.T) {
	d := &views.Dashboard{ActiveItems: make([]views.DashboardItem, 7), ActivePlans: make([]views.DashboardPlan, 5),
		Attention: make([]views.DashboardNotice, 6), RecentActivity: make([]views.DashboardRecent, 10)}
	b, _ := json.Marshal(wireBootstrapDashboard(views.CapDashboard(d)))
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
	b, _ := json.Marshal(wireSchema(views.SlimSchema(s)))
	want := `{"fields":[{"key":"due_date","type":"date"},{"key":"trigger","type":"select","options":["always"],"label":"When"}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
