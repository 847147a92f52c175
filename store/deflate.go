package store

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// looseObject is the zlib stream git stores a loose object as: "TYPE SIZE\0" and the bytes, at
// zlib's fastest level (git's core.looseCompression default). A model of tens of megabytes is
// compressed in pieces on every core, as pigz does: each piece a deflate stream of its own ended
// by a sync flush (so the next starts on a byte), the last one final, the checksum combined from
// the pieces'. Any zlib reader, git's included, reads it as one stream; a piece starts without the
// last 32 KiB of the one before as its window, which costs a few bytes per piece.
// The object is returned in its pieces (written one after the other, never joined: a model's
// compressed copy is not held twice).
func looseObject(header string, data []byte) [][]byte {
	const piece = 1 << 20
	n := runtime.GOMAXPROCS(0)
	size := max(piece, (len(data)+2*n-1)/(2*n))
	var parts [][]byte
	for rest := data; ; {
		k := min(size, len(rest))
		parts = append(parts, rest[:k])
		if rest = rest[k:]; len(rest) == 0 {
			break
		}
	}
	out := make([][]byte, len(parts))
	sums := make([]uint32, len(parts))
	work := make(chan int, len(parts))
	for i := range parts {
		work <- i
	}
	close(work)
	var wg sync.WaitGroup
	for w := 0; w < min(n, len(parts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				var b bytes.Buffer
				b.Grow(len(parts[i])/3 + 64)
				fw := deflaters.Get().(*flate.Writer)
				fw.Reset(&b)
				h := adler32.New()
				if i == 0 {
					fw.Write([]byte(header))
					h.Write([]byte(header))
				}
				fw.Write(parts[i])
				h.Write(parts[i])
				if i == len(parts)-1 {
					fw.Close()
				} else {
					fw.Flush()
				}
				deflaters.Put(fw)
				out[i], sums[i] = b.Bytes(), h.Sum32()
			}
		}()
	}
	wg.Wait()
	sum := sums[0]
	for i := 1; i < len(out); i++ {
		sum = adler32Combine(sum, sums[i], len(parts[i]))
	}
	z := make([][]byte, 0, len(out)+2)
	z = append(z, []byte{0x78, 0x01}) // deflate, 32 KiB window, fastest level; the check bits make it a multiple of 31
	z = append(z, out...)
	return append(z, binary.BigEndian.AppendUint32(nil, sum))
}

// deflaters are deflate writers at the fastest level, reset for each piece: a writer's tables are
// hundreds of kilobytes, and an apply writes a dozen objects (its blobs, trees and commit).
var deflaters = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return fw
}}

// adler32Combine is the Adler-32 of two byte strings one after the other, from each one's
// checksum and the second's length (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= 2*base {
		sum2 -= 2 * base
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}
