package tray

import (
	"context"
	"runtime"

	"fyne.io/systray"
)

// Run shows the tray until the user quits it (or stop is closed): the
// thin adapter between the Engine's State and fyne.io/systray. It must
// be called from the main goroutine (macOS runs its event loop there).
func Run(o Options, stop <-chan struct{}) error {
	if err := checkHost(o.Log); err != nil {
		return err
	}
	o.Quit = systray.Quit
	e, err := NewEngine(o)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	a := &adapter{e: e, nodes: map[string]*node{}, children: map[string][]string{}, clicks: make(chan string, 32)}
	onReady := func() {
		systray.SetTitle("padd")
		a.render() // the first menu is there before anyone asks for it
		go e.Run(ctx)
		go a.loop(ctx)
		go func() {
			select {
			case <-stop:
				systray.Quit()
			case <-ctx.Done():
			}
		}()
	}
	onExit := func() {
		cancel()
		if o.Notifier != nil {
			o.Notifier.Close()
		}
	}
	systray.Run(onReady, onExit)
	return nil
}

// adapter keeps one native entry per menu key and changes only what a
// new state changed, so an idle tray sends nothing over the bus.
type adapter struct {
	e        *Engine
	nodes    map[string]*node
	children map[string][]string // a submenu's keys as last rendered
	actions  map[string]Action
	icon     IconKind
	iconSet  bool
	tooltip  string
	clicks   chan string
}

type node struct {
	mi    *systray.MenuItem
	shown Item
}

func (a *adapter) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.e.Changes():
			a.render()
		case key := <-a.clicks:
			if act, ok := a.actions[key]; ok && act.Kind != ActNone {
				a.e.Do(act)
			}
		}
	}
}

func (a *adapter) render() {
	s := a.e.State()
	a.actions = map[string]Action{}
	a.apply(Menu(s), nil, "")
	if k := Icon(s); !a.iconSet || k != a.icon {
		a.icon, a.iconSet = k, true
		regular := IconPNG(k, false)
		if runtime.GOOS == "windows" {
			regular = icoOf(regular)
		}
		systray.SetTemplateIcon(IconPNG(k, true), regular)
	}
	if t := Tooltip(s); t != a.tooltip {
		a.tooltip = t
		systray.SetTooltip(t)
	}
}

// apply puts items on the menu (under parent, nil for the top level).
func (a *adapter) apply(items []Item, parent *systray.MenuItem, parentKey string) {
	seen := map[string]bool{}
	var keys []string
	for _, it := range items {
		keys = append(keys, it.Key)
		seen[it.Key] = true
		n := a.nodes[it.Key]
		if it.Separator {
			if n == nil {
				if parent == nil {
					systray.AddSeparator()
				} else {
					parent.AddSeparator()
				}
				a.nodes[it.Key] = &node{shown: it}
			}
			continue
		}
		if n == nil {
			n = &node{mi: a.add(it, parent), shown: Item{Label: it.Label, Tooltip: it.Tooltip, Checked: it.Checked}}
			a.nodes[it.Key] = n
			go a.forward(it.Key, n.mi)
		}
		a.update(n, it)
		a.actions[it.Key] = it.Action
		a.apply(it.Children, n.mi, it.Key)
	}
	// Entries of this submenu the state no longer has.
	for _, k := range a.children[parentKey] {
		if n := a.nodes[k]; !seen[k] && n != nil && n.mi != nil && !n.shown.Hidden {
			n.mi.Hide()
			n.shown.Hidden = true
		}
	}
	a.children[parentKey] = keys
}

func (a *adapter) add(it Item, parent *systray.MenuItem) *systray.MenuItem {
	switch {
	case parent == nil && it.Checkable:
		return systray.AddMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	case parent == nil:
		return systray.AddMenuItem(it.Label, it.Tooltip)
	case it.Checkable:
		return parent.AddSubMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	default:
		return parent.AddSubMenuItem(it.Label, it.Tooltip)
	}
}

// update changes what differs between the entry as shown and it.
func (a *adapter) update(n *node, it Item) {
	was, mi := n.shown, n.mi
	if it.Label != was.Label {
		mi.SetTitle(it.Label)
	}
	if it.Tooltip != was.Tooltip {
		mi.SetTooltip(it.Tooltip)
	}
	if it.Disabled != was.Disabled {
		if it.Disabled {
			mi.Disable()
		} else {
			mi.Enable()
		}
	}
	if it.Checked != was.Checked {
		if it.Checked {
			mi.Check()
		} else {
			mi.Uncheck()
		}
	}
	if it.Hidden != was.Hidden {
		if it.Hidden {
			mi.Hide()
		} else {
			mi.Show()
		}
	}
	n.shown = Item{Label: it.Label, Tooltip: it.Tooltip, Disabled: it.Disabled, Checked: it.Checked, Hidden: it.Hidden}
}

// forward passes an entry's clicks to the loop. systray drops a click
// that finds no receiver waiting, so each entry has one always waiting.
func (a *adapter) forward(key string, mi *systray.MenuItem) {
	for range mi.ClickedCh {
		a.clicks <- key
	}
}
