package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/archiplan/archiplan/store"
)

// TrustFile is where a workspace keeps what its person said of the hooks a pull brought,
// relative to the repository's git directory: never pulled, never pushed, this machine's alone.
const TrustFile = "archiplan/hooks-trust.json"

// maxHook bounds how much of a hook is read to hash it; a larger one is held whatever it holds.
const maxHook = 16 << 20

// ErrHeld means the hook was added or changed by a pull and waits for the person's trust
// (archiplan hooks trust): it did not run.
var ErrHeld = errors.New("added or changed by a pull: it waits for `archiplan hooks trust` on this machine")

// Trust is what the person trusts (hooks' content by SHA-256, as direnv's allow) and the hooks a
// pull added or changed that wait for it (by name, with their content's hash).
type Trust struct {
	Trusted map[string]bool   `json:"trusted"`
	Held    map[string]string `json:"held"`
}

var trustMu sync.Mutex // one process's writers of the file, in turn

// LoadTrust reads the trust file (empty when there is none).
func LoadTrust(path string) (Trust, error) {
	t := Trust{Trusted: map[string]bool{}, Held: map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	if t.Trusted == nil {
		t.Trusted = map[string]bool{}
	}
	if t.Held == nil {
		t.Held = map[string]string{}
	}
	return t, nil
}

func (t Trust) save(path string) error {
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return store.WriteFileAtomic(path, append(data, '\n'), 0o644)
}

// Digest is a hook's content hash, as trust keys it.
func Digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// Hold records that a pull brings the hook NAME with this content: it does not run until the
// person trusts it, unless they trusted this very content before.
func Hold(path, name string, content []byte) (bool, error) {
	trustMu.Lock()
	defer trustMu.Unlock()
	t, err := LoadTrust(path)
	if err != nil {
		return false, err
	}
	d := Digest(content)
	if t.Trusted[d] {
		delete(t.Held, name)
		return false, t.save(path)
	}
	t.Held[name] = d
	return true, t.save(path)
}

// TrustHeld trusts the held hooks (those named, or all when none is): their content as the pull
// brought it. It returns the names trusted, sorted.
func TrustHeld(path string, names ...string) ([]string, error) {
	trustMu.Lock()
	defer trustMu.Unlock()
	t, err := LoadTrust(path)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		if _, ok := t.Held[n]; !ok {
			return nil, fmt.Errorf("hooks/%s is not waiting for trust", n)
		}
		want[n] = true
	}
	var done []string
	for n, d := range t.Held {
		if len(want) > 0 && !want[n] {
			continue
		}
		t.Trusted[d] = true
		delete(t.Held, n)
		done = append(done, n)
	}
	sort.Strings(done)
	return done, t.save(path)
}

// Waiting lists the hooks in dir that wait for trust: held, and still the content held (a hook
// the person has since edited by hand is theirs).
func Waiting(dir, path string) ([]string, error) {
	t, err := LoadTrust(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for n, d := range t.Held {
		if held(dir, n, d) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// held says whether the hook file holds the content held.
func held(dir, name, digest string) bool {
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxHook+1))
	if err != nil || n > maxHook {
		return true // unreadable or too large to tell: held
	}
	return hex.EncodeToString(h.Sum(nil)) == digest
}
