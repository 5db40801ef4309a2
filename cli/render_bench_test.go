package cli

import (
	"fmt"
	"io"
	"testing"

	"github.com/padd/padd/api"
)

// BenchmarkRenderItems measures padctl's own share of `item list` for a
// full page (1000 items): the table, and the JSON with fields decoded.
func BenchmarkRenderItems(b *testing.B) {
	base := fixtureItems()
	items := make([]api.Item, 1000)
	for i := range items {
		items[i] = base[i%len(base)]
		items[i].Ref = fmt.Sprintf("TASK-%d", i+1)
	}
	b.Run("table", func(b *testing.B) {
		v := itemsView{items: items, now: goldenNow, showCollection: true}
		for b.Loop() {
			if err := v.writeTable(io.Discard, Style{Width: DefaultWidth}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if err := writeJSON(io.Discard, outItems(items)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
