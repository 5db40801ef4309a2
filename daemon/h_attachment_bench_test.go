package daemon

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/padd/padd/api"
)

// attachmentSeed fixes the bytes of the 10 MB file.
const attachmentSeed = 2929

// tenMB is 10 MB of incompressible bytes, a new file for each upload
// (its first 8 bytes are the upload's number), so each upload writes a
// new blob.
func tenMB(tb testing.TB) []byte {
	tb.Helper()
	tb.Logf("seed %d", attachmentSeed)
	r := rand.New(rand.NewPCG(attachmentSeed, 0))
	data := make([]byte, 10<<20)
	for i := 0; i+8 <= len(data); i += 8 {
		v := r.Uint64()
		for j := range 8 {
			data[i+j] = byte(v >> (8 * j))
		}
	}
	return data
}

// uploadAndDownload uploads data as a raw body and downloads it again,
// reading the answer into nothing; it answers the attachment's id.
func uploadAndDownload(tb testing.TB, base string, data []byte) (up, down time.Duration) {
	tb.Helper()
	t0 := time.Now()
	req, _ := http.NewRequest("POST", base+"/api/v1/workspaces/w/attachments?filename=big.bin", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	var a api.AttachmentUpload
	err = json.NewDecoder(resp.Body).Decode(&a)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 201 || a.Size != int64(len(data)) {
		tb.Fatalf("upload: %d %v %+v", resp.StatusCode, err, a)
	}
	t1 := time.Now()
	req, _ = http.NewRequest("GET", base+a.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || n != int64(len(data)) {
		tb.Fatalf("download: %d bytes, %v", n, err)
	}
	return t1.Sub(t0), time.Since(t1)
}

// BenchmarkAttachment10MB uploads a 10 MB file over loopback (raw body,
// streamed to a synced blob, its row written) and downloads it again;
// goal ≤ 100 ms each (issue 29). alloc-MB is the bytes the process
// allocated per upload and download together: flat, not the file's size.
func BenchmarkAttachment10MB(b *testing.B) {
	url, stop := benchPadd(b)
	defer stop()
	benchDo(b, "POST", url+"/api/v1/workspaces", "application/json", []byte(`{"name":"Work","slug":"w"}`))
	data := tenMB(b)
	var up, down time.Duration
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		data[0], data[1], data[2], data[3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		u, d := uploadAndDownload(b, url, data)
		up, down = up+u, down+d
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(up), "upload-ms")
	b.ReportMetric(per(down), "download-ms")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20)/float64(b.N), "alloc-MB")
}

// A 10 MB upload and download allocate a small, fixed amount, not the
// file: both stream (client and padd share this process, so this counts
// both ends).
func TestAttachmentTransfersStream(t *testing.T) {
	h := newHarness(t)
	data := tenMB(t)
	uploadAndDownload(t, h.ts.URL, data) // warm: the first request's buffers and pools
	data[0]++
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	uploadAndDownload(t, h.ts.URL, data)
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	t.Logf("allocated %d bytes", got)
	if got > 4<<20 {
		t.Fatalf("a 10 MB upload and download allocated %d bytes; they should stream", got)
	}
}
