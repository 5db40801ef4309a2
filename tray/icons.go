package tray

import (
	"bytes"
	"embed"
	"encoding/binary"
	"image/png"
)

//go:embed icons/*.png
var iconFiles embed.FS

// IconPNG is a state's icon as PNG; template picks the macOS template
// image (black with alpha, tinted by the system for dark mode).
func IconPNG(k IconKind, template bool) []byte {
	name := "icons/" + k.String()
	if template {
		name += "_template"
	}
	b, err := iconFiles.ReadFile(name + ".png")
	if err != nil {
		panic("tray: missing embedded icon " + name) // a build without its icons
	}
	return b
}

// icoOf wraps a PNG in an .ico container, which Windows' tray wants: one
// image, stored as PNG (Windows Vista and later read PNG entries).
func icoOf(pngData []byte) []byte {
	w, h := 0, 0
	if cfg, err := png.DecodeConfig(bytes.NewReader(pngData)); err == nil {
		w, h = cfg.Width, cfg.Height
	}
	var buf bytes.Buffer
	le := binary.LittleEndian
	hdr := make([]byte, 6+16)
	le.PutUint16(hdr[2:], 1)                  // type: icon
	le.PutUint16(hdr[4:], 1)                  // one image
	hdr[6], hdr[7] = byte(w%256), byte(h%256) // 0 stands for 256
	le.PutUint16(hdr[10:], 1)                 // colour planes
	le.PutUint16(hdr[12:], 32)                // bits per pixel
	le.PutUint32(hdr[14:], uint32(len(pngData)))
	le.PutUint32(hdr[18:], uint32(len(hdr)))
	buf.Write(hdr)
	buf.Write(pngData)
	return buf.Bytes()
}
