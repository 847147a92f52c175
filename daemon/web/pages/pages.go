// Package pages holds the page templates and assets shared by the review page (package web) and
// the published site (package publish): one layout, one set of pages, one Markdown renderer.
package pages

import (
	"bytes"
	"embed"
	"fmt"
	"github.com/archiplan/archiplan/archixml"
	"html/template"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	gfm "github.com/archiplan/archiplan/third_party/yuin/goldmark-gfm"
)

//go:embed assets
var assets embed.FS

// Pages are the page templates, each parsed with the layout.
type Pages struct{ byName map[string]*template.Template }

// Common is what every page's layout needs.
type Common struct {
	Title     string
	Nav       string
	CSRF      string
	Operator  string
	Base      string // the session's path: every link is relative to it
	Workspace string // the workspace's folder name, named on every page (on the site: the model's name)
	Model     string // the model's path in it (on the site: the commit it is published at)
	Site      bool   // a page of the published site: read-only, its own script, a CSP of its own
	// HooksWaiting are the hooks a pull added or changed that do not run until the person
	// trusts them (archiplan hooks trust): said on every page, since a held pre-apply holds
	// every approval
	HooksWaiting []string
}

// Asset is the embedded file assets/NAME (a script, a style sheet).
func Asset(name string) ([]byte, error) { return assets.ReadFile("assets/" + name) }

var pageNames = []string{"inbox", "plan", "history", "views", "view", "result", "review", "object",
	"site_index", "site_views", "site_view", "site_concept", "site_folder", "site_history", "site_plan", "site_search"}

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

// Load parses every page with the layout.
func Load() (*Pages, error) {
	p := &Pages{byName: map[string]*template.Template{}}
	for _, n := range pageNames {
		files := []string{"assets/layout.html", "assets/" + n + ".html"}
		if strings.HasPrefix(n, "site_") {
			files = append(files, "assets/site_parts.html")
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, files...)
		if err != nil {
			return nil, fmt.Errorf("pages: parse %s: %w", n, err)
		}
		p.byName[n] = t
	}
	return p, nil
}

// Execute draws page name with data.
func (p *Pages) Execute(w io.Writer, name string, data any) error {
	t, ok := p.byName[name]
	if !ok {
		return fmt.Errorf("no page %q", name)
	}
	return t.Execute(w, data)
}

// Markdown renders a preview's Markdown as HTML for the page: tables as GitHub draws them; raw
// HTML is dropped and dangerous link targets emptied (goldmark's safe default), though previews
// escape everything anyway. An image may only show one of the plan's own pictures, served by the
// page under the session path base; any other image target is emptied. used says which pictures
// the preview showed.
func Markdown(src []byte, base, name string, pictures []string) (html template.HTML, used map[string]bool) {
	used = map[string]bool{}
	known := map[string]bool{}
	for _, p := range pictures {
		known[p] = true
	}
	html = MarkdownWith(src, func(dest string, _ bool) string {
		if known[dest] {
			used[dest] = true
			return base + "/plan/" + url.PathEscape(name) + "/picture/" + url.PathEscape(dest)
		}
		return ""
	})
	return html, used
}

// MarkdownWith renders Markdown as Markdown does, every image and link target replaced by what
// rewrite makes of it ("" empties it).
func MarkdownWith(src []byte, rewrite ImageRewriter) template.HTML {
	md := goldmark.New(goldmark.WithExtensions(gfm.Table, gfm.Strikethrough),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(rewrite, 100))))
	var b bytes.Buffer
	if err := md.Convert(src, &b); err != nil {
		return template.HTML("<pre>" + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	return template.HTML(b.String()) // #nosec: goldmark without WithUnsafe escapes text and drops raw HTML
}

// ImageRewriter sets every image's and link's target to what the function makes of it (image:
// the target of an image, not of a link).
type ImageRewriter func(dest string, image bool) string

// Transform rewrites images and links (a link may only lead to one of the plan's own pictures,
// as the whole view does; any other target is emptied), and leaves the Mermaid diagram out: the
// page draws no Mermaid (that would take a script it does not load), and shows the pictures.
func (f ImageRewriter) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var drop []ast.Node
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Image:
			n.Destination = []byte(f(string(n.Destination), true))
		case *ast.Link:
			n.Destination = []byte(f(string(n.Destination), false))
		case *ast.FencedCodeBlock:
			if string(n.Language(reader.Source())) == "mermaid" {
				// with the heading and words that introduce it, when they are just before it
				intro := []ast.Node{}
				for p := n.PreviousSibling(); p != nil && len(intro) < 4; p = p.PreviousSibling() {
					intro = append(intro, p)
					if h, ok := p.(*ast.Heading); ok && h.Level == 2 {
						drop = append(drop, intro...)
						break
					}
				}
				drop = append(drop, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range drop {
		if p := n.Parent(); p != nil {
			p.RemoveChild(p, n)
		}
	}
}

// TypeLabel is a concept's type as people read it ("Business Actor").
func TypeLabel(o archixml.Object) string {
	if t := o.Type(); t != nil {
		return t.Label
	}
	switch o.Kind() {
	case archixml.KindView:
		return "View"
	case archixml.KindFolder:
		return "Folder"
	}
	return o.Class()
}
