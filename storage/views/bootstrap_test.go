package views

import "testing"

func TestCapDashboard(t *testing.T) {
	d := &Dashboard{ActiveItems: make([]DashboardItem, 7), ActivePlans: make([]DashboardPlan, 5),
		Attention: make([]DashboardNotice, 6), RecentActivity: make([]DashboardRecent, 10)}
	c := CapDashboard(d)
	if len(c.ActiveItems) != 5 || c.ActiveItemsOverflowCount != 2 || len(c.ActivePlans) != 5 || c.ActivePlansOverflowCount != 0 ||
		len(c.Attention) != 5 || c.AttentionOverflowCount != 1 || len(c.RecentActivity) != 5 || c.RecentActivityOverflowCount != 5 {
		t.Fatalf("capped %+v", c)
	}
	if len(d.ActiveItems) != 7 || len(d.RecentActivity) != 10 {
		t.Fatal("CapDashboard changed the dashboard it capped")
	}
}
