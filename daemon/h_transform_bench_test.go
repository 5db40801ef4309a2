package daemon

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// transformSeed fixes the benchmark images' noise.
const transformSeed = 2929

// benchImage is a w x h picture with smooth gradients and fixed noise
// (a photo's content, roughly), as JPEG (quality 90) or PNG.
func benchImage(tb testing.TB, w, h int, format string) []byte {
	tb.Helper()
	tb.Logf("seed %d", transformSeed)
	r := rand.New(rand.NewPCG(transformSeed, uint64(w)))
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := uint8(r.IntN(16))
			m.SetRGBA(x, y, color.RGBA{uint8(x*255/w) + n, uint8(y*255/h) + n, uint8((x+y)*255/(w+h)) + n, 255})
		}
	}
	var buf bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&buf, m)
	} else {
		err = jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// heapPeak samples the heap's live objects every 200 µs until stopped,
// and answers the most it saw.
func heapPeak() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		metrics.Read(s)
		return max(peak, s[0].Value.Uint64())
	}
}

// BenchmarkTransform rotates (90) and crops (the middle quarter) a
// 4000x3000 JPEG and a 2000x2000 PNG through padd's route, on a padd with
// real syncs on loopback. peak-heap-MB is the most the process's heap held
// during one transform above what it held before it (sampled);
// alloc-MB the bytes allocated per transform.
func BenchmarkTransform(b *testing.B) {
	url, stop := benchPadd(b)
	defer stop()
	benchDo(b, "POST", url+"/api/v1/workspaces", "application/json", []byte(`{"name":"Work","slug":"w"}`))
	for _, img := range []struct {
		name   string
		w, h   int
		format string
	}{{"jpeg-4000x3000", 4000, 3000, "jpeg"}, {"png-2000x2000", 2000, 2000, "png"}} {
		data := benchImage(b, img.w, img.h, img.format)
		var up api.AttachmentUpload
		if err := json.Unmarshal(benchDo(b, "POST", url+"/api/v1/workspaces/w/attachments?filename=pic."+img.format, "application/octet-stream", data), &up); err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %d bytes", img.name, len(data))
		for _, op := range []struct {
			name string
			req  api.TransformRequest
		}{
			{"rotate90", api.TransformRequest{Operation: "rotate", Degrees: 90}},
			{"crop", api.TransformRequest{Operation: "crop", Rect: &api.TransformRect{X: img.w / 4, Y: img.h / 4, W: img.w / 2, H: img.h / 2}}},
		} {
			body, _ := json.Marshal(op.req)
			b.Run(img.name+"/"+op.name, func(b *testing.B) {
				var peak, alloc uint64
				var before, after runtime.MemStats
				for range b.N {
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&before)
					base := before.HeapAlloc
					b.StartTimer()
					stopPeak := heapPeak()
					req, _ := http.NewRequest("POST", url+"/api/v1/workspaces/w/attachments/"+up.ID+"/transform", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+testToken)
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					var out api.AttachmentUpload
					err = json.NewDecoder(resp.Body).Decode(&out)
					resp.Body.Close()
					if err != nil || resp.StatusCode != 201 {
						b.Fatalf("transform: %d %v", resp.StatusCode, err)
					}
					p := stopPeak()
					b.StopTimer()
					runtime.ReadMemStats(&after)
					peak = max(peak, p-min(p, base))
					alloc += after.TotalAlloc - before.TotalAlloc
					b.StartTimer()
				}
				b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
				b.ReportMetric(float64(alloc)/float64(b.N)/1e6, "alloc-MB/op")
			})
		}
	}
}

// BenchmarkThumbnail makes thumb-md (1024 pixels on the longer edge) of
// a 4000x3000 JPEG and a 2000x2000 PNG through padd's download route
// (the kept file removed before each, so each is made), and reads the
// kept one (cached). Metrics as BenchmarkTransform's.
func BenchmarkThumbnail(b *testing.B) {
	url, stop := benchPadd(b)
	defer stop()
	// benchPadd's data directory is a sibling of this one (b.TempDir's).
	root := filepath.Dir(b.TempDir())
	benchDo(b, "POST", url+"/api/v1/workspaces", "application/json", []byte(`{"name":"Work","slug":"w"}`))
	for _, img := range []struct {
		name   string
		w, h   int
		format string
	}{{"jpeg-4000x3000", 4000, 3000, "jpeg"}, {"png-2000x2000", 2000, 2000, "png"}} {
		data := benchImage(b, img.w, img.h, img.format)
		var up api.AttachmentUpload
		if err := json.Unmarshal(benchDo(b, "POST", url+"/api/v1/workspaces/w/attachments?filename=pic."+img.format, "application/octet-stream", data), &up); err != nil {
			b.Fatal(err)
		}
		derived := filepath.Join(root, "*", BlobDir, "derived", up.ContentHash+".thumb-md")
		for _, cached := range []bool{false, true} {
			name := img.name + "/make"
			if cached {
				name = img.name + "/cached"
			}
			b.Run(name, func(b *testing.B) {
				var peak, alloc uint64
				var before, after runtime.MemStats
				for range b.N {
					b.StopTimer()
					if !cached {
						kept, _ := filepath.Glob(derived)
						for _, f := range kept {
							os.Remove(f)
						}
					}
					runtime.GC()
					runtime.ReadMemStats(&before)
					base := before.HeapAlloc
					b.StartTimer()
					stopPeak := heapPeak()
					req, _ := http.NewRequest("GET", url+"/api/v1/workspaces/w/attachments/"+up.ID+"?variant=thumb-md", nil)
					req.Header.Set("Authorization", "Bearer "+testToken)
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || resp.Header.Get("X-Pad-Attachment-Variant") != "thumb-md" || n == 0 {
						b.Fatalf("thumb-md: %d %q", resp.StatusCode, resp.Header.Get("X-Pad-Attachment-Variant"))
					}
					p := stopPeak()
					b.StopTimer()
					runtime.ReadMemStats(&after)
					peak = max(peak, p-min(p, base))
					alloc += after.TotalAlloc - before.TotalAlloc
					b.StartTimer()
				}
				b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
				b.ReportMetric(float64(alloc)/float64(b.N)/1e6, "alloc-MB/op")
			})
		}
	}
}
