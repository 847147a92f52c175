package archixml

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"runtime"
	"strings"
	"sync"
	"testing"
)

const bombChunk = 1 << 20 // each MiB of spaces deflates on its own, so the bomb is made in milliseconds

var bombOnce struct {
	sync.Once
	stream  []byte // raw deflate of bombMiB MiB of spaces
	crc     uint32
	inflate uint64
}

const bombMiB = 1023 // just under 1 GiB

// bombStream is the deflate stream of 1023 MiB of spaces, made as a repeat of one independently
// deflated MiB (a sync flush ends each on a byte boundary with an empty window dependency).
func bombStream(t *testing.T) ([]byte, uint32, uint64) {
	t.Helper()
	bombOnce.Do(func() {
		chunk := bytes.Repeat([]byte(" "), bombChunk)
		var one bytes.Buffer
		w, _ := flate.NewWriter(&one, flate.BestCompression)
		w.Write(chunk)
		w.Flush()
		var end bytes.Buffer
		fw, _ := flate.NewWriter(&end, flate.BestCompression)
		fw.Close()
		stream := bytes.Repeat(one.Bytes(), bombMiB)
		bombOnce.stream = append(stream, end.Bytes()...)
		c := crc32.NewIEEE()
		for i := 0; i < bombMiB; i++ {
			c.Write(chunk)
		}
		bombOnce.crc, bombOnce.inflate = c.Sum32(), bombMiB*bombChunk
	})
	return bombOnce.stream, bombOnce.crc, bombOnce.inflate
}

// bombArchive is an Archi-style zipped model whose model.xml is the bomb, with the header
// claiming size bytes (the truth, or a lie).
func bombArchive(t *testing.T, size uint64) []byte {
	t.Helper()
	stream, crc, _ := bombStream(t)
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "model.xml", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(stream)), UncompressedSize64: size})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(stream)
	zw.Close()
	return out.Bytes()
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 1 MB zipped model that inflates to just under 1 GiB is refused, from its header before
// anything is inflated, and when the header lies, by inflating no more than the limit allows.
func TestLoad_ZipBomb(t *testing.T) {
	stream, _, real := bombStream(t)
	if len(stream) > 2<<20 || real < 1000<<20 {
		t.Fatalf("the bomb is %d bytes inflating to %d", len(stream), real)
	}
	defer func(max int) { MaxModelBytes = max }(MaxModelBytes)
	for _, c := range []struct {
		name   string
		header uint64
		limit  int
		want   error
		budget uint64 // bytes Load may allocate: the limit and change, never the bomb's size
	}{
		{"honest header, default limit", real, MaxModelBytes, ErrTooLarge, 8 << 20},
		{"header under the limit, stream over it", 8 << 20, 16 << 20, ErrMalformed, 3 * 16 << 20},
		{"header claims 100 bytes", 100, MaxModelBytes, ErrMalformed, 8 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := bombArchive(t, c.header)
			MaxModelBytes = c.limit
			var err error
			n := allocated(func() { _, err = Load(data) })
			if !errors.Is(err, c.want) {
				t.Fatalf("Load: %v, want %v", err, c.want)
			}
			if n > c.budget {
				t.Fatalf("Load allocated %d MiB to refuse it, more than %d MiB", n>>20, c.budget>>20)
			}
			t.Logf("refused (%v) after allocating %.1f MiB", err, float64(n)/(1<<20))
		})
	}
}

// An edit that would push a model past the limit is caught by CheckSize on what Save writes, in
// both forms, so that an apply never commits a model archiplan could not load again.
func TestCheckSize(t *testing.T) {
	defer func(max int) { MaxModelBytes = max }(MaxModelBytes)
	for _, zipped := range []bool{false, true} {
		m := Example()
		data, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if zipped {
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			w, _ := zw.Create("model.xml")
			w.Write(data)
			zw.Close()
			data = b.Bytes()
		}
		m, err = Load(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckSize(data); err != nil {
			t.Fatalf("zipped %v: a model as loaded: %v", zipped, err)
		}
		xmlSize := len(m.src)
		MaxModelBytes = xmlSize + 100
		if _, err := Load(data); err != nil {
			t.Fatalf("zipped %v: a model just under the limit: %v", zipped, err)
		}
		id := m.Elements()[0].ID()
		if err := m.SetDocumentation(id, strings.Repeat("padding ", 100)); err != nil {
			t.Fatal(err)
		}
		grown, err := m.Save()
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckSize(grown); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("zipped %v: CheckSize of a model pushed past the limit: %v", zipped, err)
		}
		if _, err := Load(grown); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("zipped %v: Load of it: %v", zipped, err)
		}
		MaxModelBytes = xmlSize * 4
		if err := CheckSize(grown); err != nil {
			t.Fatalf("zipped %v: under a larger limit: %v", zipped, err)
		}
	}
}
