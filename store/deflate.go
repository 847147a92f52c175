package store

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

// looseObject is the zlib stream git stores a loose object as: "TYPE SIZE\0" and the bytes, at
// zlib's fastest level (git's core.looseCompression default). The bytes are compressed in pieces
// on every core, as pigz does: the header and each piece (up to pieceSize, cut at a line: cuts) a
// deflate stream of its own ended by a sync flush (so the next starts on a byte), then an empty
// final block, the checksum combined from the pieces'. Any zlib reader, git's included, reads it as
// one stream; a piece starts without the last 32 KiB of the one before as its window, which costs
// a few bytes per piece. The object is returned in its pieces (written one after the other, never
// joined: a model's compressed copy is not held twice).
func looseObject(header string, data []byte) [][]byte {
	z, _ := compressed(header, data, nil)
	return z
}

// pieceSize is about how many bytes of a blob a piece holds: small enough that a model changed in
// a few places is compressed again in a few pieces (reused), large enough that the window each
// piece starts without costs little (under 1% at 256 KiB on a model).
const pieceSize = 256 << 10

// pieces are a blob as compressed: data cut at at (piece i is data[at[i]:at[i+1]]), each piece's
// deflate stream (ended by a sync flush) and Adler-32. The last large blob written keeps them
// (Workspace.lastPieces), so that the next one, the model changed in a few places, compresses
// only the pieces that changed. data is never changed once written, as a change's files never are.
type pieces struct {
	data []byte
	at   []int
	z    [][]byte
	sum  []uint32
}

// compressed is looseObject's stream of header and data, and data's pieces; each piece of prev
// (the pieces of a blob written before) found in data, byte for byte, is taken as it is instead
// of compressed again (reuse).
func compressed(header string, data []byte, prev *pieces) ([][]byte, *pieces) {
	p := &pieces{data: data, at: []int{0}}
	var todo []int // the pieces to compress
	from := 0      // data from here on is not yet cut into pieces
	gap := func(to int) {
		for _, end := range cuts(data, from, to) {
			todo = append(todo, len(p.z))
			p.at = append(p.at, end)
			p.z, p.sum = append(p.z, nil), append(p.sum, 0)
		}
		from = to
	}
	for _, r := range reuse(prev, data) {
		gap(r.at)
		n := prev.at[r.piece+1] - prev.at[r.piece]
		p.at = append(p.at, r.at+n)
		p.z, p.sum = append(p.z, prev.z[r.piece]), append(p.sum, prev.sum[r.piece])
		from = r.at + n
	}
	gap(len(data))
	var head []byte
	var headSum uint32
	work := make(chan int, len(todo)+1)
	work <- -1 // the header
	for _, i := range todo {
		work <- i
	}
	close(work)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(todo)+1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if i < 0 {
					head, headSum = deflatePiece([]byte(header))
					continue
				}
				p.z[i], p.sum[i] = deflatePiece(data[p.at[i]:p.at[i+1]])
			}
		}()
	}
	wg.Wait()
	sum := headSum
	for i := range p.z {
		sum = adler32Combine(sum, p.sum[i], p.at[i+1]-p.at[i])
	}
	z := make([][]byte, 0, len(p.z)+4)
	z = append(z, []byte{0x78, 0x01}, head) // deflate, 32 KiB window, fastest level; the check bits make it a multiple of 31
	z = append(z, p.z...)
	z = append(z, []byte{0x03, 0x00}) // an empty final block (fixed codes: its end code alone)
	z = append(z, binary.BigEndian.AppendUint32(nil, sum))
	if len(p.z) <= 1 && len(data) < 64<<10 {
		// a small object (a tree, a commit, an archived file) in one write, not five
		return [][]byte{bytes.Join(z, nil)}, p
	}
	return z, p
}

// deflated counts the bytes deflatePiece compressed, for the tests that hold a model written
// again to compressing only what changed.
var deflated atomic.Int64

// deflatePiece is b as a deflate stream ended by a sync flush, and b's Adler-32.
func deflatePiece(b []byte) ([]byte, uint32) {
	deflated.Add(int64(len(b)))
	var out bytes.Buffer
	out.Grow(len(b)/3 + 64)
	fw := deflaters.Get().(*flate.Writer)
	fw.Reset(&out)
	fw.Write(b)
	fw.Flush()
	deflaters.Put(fw)
	return out.Bytes(), adler32.Checksum(b)
}

// cuts are the ends of the pieces data[from:to] is cut into: each at the start of a line, the
// first at or after pieceSize bytes whose line holds `id="` (an object's: the line the next write
// looks for the piece by, unique in a model), else the first line there; a rest under half a
// piece stays with the piece before. The last cut is to; none for an empty range.
func cuts(data []byte, from, to int) []int {
	var ends []int
	for from < to {
		end := to
		if to-from >= pieceSize+pieceSize/2 {
			end = lineAfter(data[:to], from+pieceSize)
			if to-end < pieceSize/2 {
				end = to
			}
		}
		ends = append(ends, end)
		from = end
	}
	return ends
}

// lineAfter is where the first line starting after at begins whose line holds `id="`, or the
// first line's start when none does within 64 KiB, or at itself when no line starts there.
func lineAfter(data []byte, at int) int {
	first := -1
	for i := at; i < len(data) && i < at+64<<10; {
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			break
		}
		start := i + nl + 1
		if first < 0 {
			first = start
		}
		end := len(data)
		if k := bytes.IndexByte(data[start:], '\n'); k >= 0 {
			end = start + k
		}
		if bytes.Contains(data[start:end], []byte(`id="`)) {
			return start
		}
		i = end
	}
	if first < 0 || first >= len(data) {
		return at
	}
	return first
}

// reused is a piece of the blob before (piece) found whole in the new one, at at.
type reused struct{ piece, at int }

// reuse finds the pieces of prev that data holds unchanged, in order, each where it lies in data:
// right after the last one found, or shifted as the last one found was, or as the end of the
// file was (a model changed in one place), or else where the end of its first line (an object's
// id) is found again. Every piece taken is compared byte for byte where it lies; the searches
// stop after scanning half of data in all (a model changed everywhere is compressed anew).
func reuse(prev *pieces, data []byte) []reused {
	if prev == nil {
		return nil
	}
	var found []reused
	old := prev.data
	at, shift := 0, 0 // data is covered up to at; the last piece found moved by shift
	budget := len(data) / 2
	for i := range prev.z {
		s, e := prev.at[i], prev.at[i+1]
		piece := old[s:e]
		same := func(c int) bool {
			return c >= at && c+len(piece) <= len(data) && bytes.Equal(data[c:c+len(piece)], piece)
		}
		c := -1
		switch {
		case same(at):
			c = at
		case same(s + shift):
			c = s + shift
		case same(s + len(data) - len(old)):
			c = s + len(data) - len(old)
		case budget > 0:
			// the end of the piece's first line, found again
			end := bytes.IndexByte(piece, '\n')
			if end < 0 {
				end = len(piece)
			}
			k := max(0, end-63)
			mark := piece[k:end]
			if len(mark) < 16 {
				break
			}
			if at+k+len(mark) > len(data) {
				break
			}
			limit := min(len(data), at+k+budget+len(mark))
			j := bytes.Index(data[at+k:limit], mark)
			if j < 0 {
				budget -= limit - at - k
				break
			}
			budget -= j + len(mark)
			if same(at + j) {
				c = at + j
			}
		}
		if c >= 0 {
			found = append(found, reused{i, c})
			at, shift = c+len(piece), c-s
		}
	}
	return found
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
