package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

//go:embed assets
var assets embed.FS

// pages are the page templates, each parsed with the layout.
type pages struct{ byName map[string]*template.Template }

var pageNames = []string{"inbox", "plan", "history", "views", "view", "result"}

var funcs = template.FuncMap{
	"short": func(h string) string {
		if len(h) > 12 {
			return h[:12]
		}
		return h
	},
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
	"path":  url.PathEscape,
	"deref": func(p *int) int { return *p },
}

func loadPages() (*pages, error) {
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "assets/layout.html", "assets/"+n+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", n, err)
		}
		p.byName[n] = t
	}
	return p, nil
}

func (p *pages) execute(w io.Writer, name string, data any) error {
	t, ok := p.byName[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return t.Execute(w, data)
}

// md renders previews: tables as GitHub draws them; raw HTML is dropped and dangerous link
// targets emptied (goldmark's safe default), though previews escape everything anyway.
var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// markdown renders a preview's Markdown as HTML for the page.
func markdown(src []byte) template.HTML {
	var b bytes.Buffer
	if err := md.Convert(src, &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	return template.HTML(b.String()) // #nosec: goldmark without WithUnsafe escapes text and drops raw HTML
}
