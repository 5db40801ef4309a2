package tray

// The tray's icons are drawn here, and the test holds the embedded PNGs
// to the drawing: a note pad with a status badge, in colour, and as
// macOS template images (black with alpha, which macOS tints for light
// and dark menu bars). `go test ./tray -run TestIcons -update-icons`
// writes them again after a change of the drawing.

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var updateIcons = flag.Bool("update-icons", false, "write tray/icons/*.png from the drawing")

const iconSize = 32

type badge struct {
	name   string
	colour color.NRGBA
	hollow bool // a ring: padd is not there
	bang   bool // an exclamation mark: padd is too old
	cross  bool // two crossing strokes: a conflict
}

var badges = []badge{
	{name: "running", colour: color.NRGBA{0x2e, 0xa0, 0x43, 0xff}},
	{name: "syncing", colour: color.NRGBA{0x2f, 0x81, 0xf7, 0xff}},
	{name: "offline", colour: color.NRGBA{0xd2, 0x99, 0x22, 0xff}},
	{name: "conflict", colour: color.NRGBA{0xcf, 0x22, 0x2e, 0xff}, cross: true},
	{name: "stopped", colour: color.NRGBA{0x8c, 0x95, 0x9f, 0xff}, hollow: true},
	{name: "old", colour: color.NRGBA{0x82, 0x50, 0xdf, 0xff}, bang: true},
}

func TestIconsAreTheDrawing(t *testing.T) {
	kinds := map[string]IconKind{}
	for k := IconRunning; k <= IconOld; k++ {
		kinds[k.String()] = k
	}
	for _, b := range badges {
		for _, template := range []bool{false, true} {
			var buf bytes.Buffer
			if err := png.Encode(&buf, draw(b, template)); err != nil {
				t.Fatal(err)
			}
			name := b.name
			if template {
				name += "_template"
			}
			if *updateIcons {
				if err := os.WriteFile(filepath.Join("icons", name+".png"), buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			k, ok := kinds[b.name]
			if !ok {
				t.Fatalf("icon %s is no IconKind", b.name)
			}
			if !bytes.Equal(IconPNG(k, template), buf.Bytes()) {
				t.Errorf("icons/%s.png is not the drawing: run go test ./tray -run TestIcons -update-icons", name)
			}
		}
	}
}

func TestIcoWrapsThePNG(t *testing.T) {
	p := IconPNG(IconRunning, false)
	ico := icoOf(p)
	if !bytes.Equal(ico[:6], []byte{0, 0, 1, 0, 1, 0}) || ico[6] != 32 || ico[7] != 32 || !bytes.Equal(ico[22:], p) {
		t.Fatalf("ico header % x", ico[:22])
	}
}

func draw(b badge, template bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	ink := color.NRGBA{0x3a, 0x3f, 0x44, 0xff}
	paper := color.NRGBA{0xf6, 0xf8, 0xfa, 0xff}
	badgeInk := b.colour
	if template {
		ink, paper, badgeInk = color.NRGBA{0, 0, 0, 0xff}, color.NRGBA{0, 0, 0, 0}, color.NRGBA{0, 0, 0, 0xff}
	}
	// The pad: a rounded rectangle with three ruled lines.
	for y := 3; y < 29; y++ {
		for x := 5; x < 25; x++ {
			edge := x < 7 || x > 22 || y < 5 || y > 26
			corner := (x == 5 || x == 24) && (y == 3 || y == 28)
			switch {
			case corner:
			case edge:
				img.SetNRGBA(x, y, ink)
			default:
				img.SetNRGBA(x, y, paper)
			}
		}
	}
	for _, y := range []int{10, 15, 20} {
		for x := 9; x < 19; x++ {
			img.SetNRGBA(x, y, ink)
		}
	}
	// The badge, bottom right, cut out of the pad.
	cx, cy, r := 24.0, 24.0, 7.5
	for y := 0; y < iconSize; y++ {
		for x := 0; x < iconSize; x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			switch {
			case d <= r-2.2 && b.hollow:
				img.SetNRGBA(x, y, color.NRGBA{})
			case d <= r:
				img.SetNRGBA(x, y, badgeInk)
			case d <= r+1.5:
				img.SetNRGBA(x, y, color.NRGBA{})
			}
		}
	}
	mark := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	if template {
		mark = color.NRGBA{}
	}
	if b.bang {
		for y := 19; y < 26; y++ {
			if y == 24 {
				continue
			}
			img.SetNRGBA(23, y, mark)
			img.SetNRGBA(24, y, mark)
		}
	}
	if b.cross {
		for i := -3; i <= 3; i++ {
			img.SetNRGBA(24+i, 24+i, mark)
			img.SetNRGBA(24+i, 24-i, mark)
		}
	}
	return img
}
