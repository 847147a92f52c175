package hidden

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestShow(t *testing.T) {
	for in, want := range map[string]string{
		"plain Ünïcödé 名前":                      "plain Ünïcödé 名前",
		"tag\U000e0041\U000e0049\U000e007f":     `tag\u{e0041}\u{e0049}\u{e007f}`,
		"rlo\u202eevil\u202c":                   `rlo\u{202e}evil\u{202c}`,
		"iso\u2066x\u2069":                      `iso\u{2066}x\u{2069}`,
		"zw\u200b\u200c\u200d\ufeff":            `zw\u{200b}\u{200c}\u{200d}\u{feff}`,
		"nbsp\u00a0x":                           "nbsp\u00a0x", // seen, as a space
		"vs\u2764\ufe0f":                        `vs❤\u{fe0f}`,
		"bell\a":                                `bell\u{0007}`,
		`already \u{202e}, a backslash \ stays`: `already \u{202e}, a backslash \ stays`,
	} {
		if got := Show(in); got != want {
			t.Errorf("Show(%+q) = %s, want %s", in, got, want)
		}
	}
}

// Quote writes what strconv.Quote writes for every text without a hidden character or other
// space (the preview's sentences read as they did), and the one code for every hidden one.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "Customer", `say "hi" \ bye`, "line\nbreak\ttab", "Ünïcödé 名前 ❤", "rtl العربية"} {
		if got, want := Quote(s), strconv.Quote(s); got != want {
			t.Errorf("Quote(%s) = %s, want %s", want, got, want)
		}
	}
	if got, want := Quote("Desk\U000e0041\u202e\u200d"), `"Desk\u{e0041}\u{202e}\u{200d}"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

// JSON leaves no hidden character in the text, and every value decodes as it was.
func TestJSON(t *testing.T) {
	v := map[string]string{"name": "Desk\U000e0041\u202e\u200d", "id": "id-1\u2066"}
	data, _ := json.MarshalIndent(v, "", "  ")
	out := JSON(data)
	for _, r := range string(out) {
		if Is(r) && r != '\n' {
			t.Fatalf("raw %U in %s", r, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["name"] != v["name"] || back["id"] != v["id"] {
		t.Fatalf("decoded %q, %v; want %q", back, err, v)
	}
	if want := `"Desk\udb40\udc41\u202e\u200d"`; !strings.Contains(string(out), want) {
		t.Errorf("%s lacks %s", out, want)
	}
}
