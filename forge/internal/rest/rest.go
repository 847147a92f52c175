// Package rest is what the forge clients share: one JSON request to a forge's REST API with the
// token only in its header, a timeout per request, bounded retries of what a retry can mend, the
// answer read with a size limit, and one-line errors that name the forge and the request, never
// the token nor more than a line of the answer.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/archiplan/archiplan/forge"
)

// Retries, as the planners' HTTP clients do them: twice, 0.5 s doubling up to 8 s unless the
// answer says how long to wait (Retry-After), never longer than a minute.
const (
	Retries      = 2
	MaxWait      = 60 * time.Second
	Backoff0     = 500 * time.Millisecond
	BackoffN     = 8 * time.Second
	Timeout      = 60 * time.Second // one request, answer included
	MaxAnswer    = 8 << 20          // bytes of an answer read
	MaxErrorText = 300              // characters of a forge's message in an error
)

// Client speaks to one forge's API.
type Client struct {
	Forge string // how errors name it: "gitea"
	Base  string // the API's base URL, no trailing slash: https://gitea.example.com/api/v1
	// Auth sets the token's header on a request (and nothing else does).
	Auth func(http.Header)
	// Token is redacted from every error, whatever a server echoes.
	Token string
	// Header is set on every request (Accept, API versions).
	Header http.Header
	HTTP   *http.Client // nil: a client with Timeout
	// Backoff is the first wait between retries; tests shorten it.
	Backoff time.Duration
}

// Do sends method path (with its query) and, when in is not nil, in as JSON; a 2xx answer is
// decoded into out when out is not nil. It returns the answer's headers (pagination).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) (http.Header, error) {
	var data []byte
	if in != nil {
		var err error
		if data, err = json.Marshal(in); err != nil {
			return nil, err
		}
	}
	backoff := c.Backoff
	if backoff == 0 {
		backoff = Backoff0
	}
	for attempt := 0; ; attempt++ {
		h, raw, wait, err := c.once(ctx, method, path, data)
		if err == nil {
			if out != nil && len(bytes.TrimSpace(raw)) > 0 {
				if err := json.Unmarshal(raw, out); err != nil {
					return h, c.errorf(method, path, 0, "the answer is not the JSON expected: %v", oneLine(err.Error(), MaxErrorText))
				}
			}
			return h, nil
		}
		if wait < 0 || attempt >= Retries {
			return h, err
		}
		if wait == 0 {
			wait = min(backoff<<attempt, BackoffN)
		}
		if wait > MaxWait {
			return h, err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return h, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return h, err
		}
	}
}

// once sends the request once; wait is -1 when a retry cannot help, 0 for the usual backoff, or
// what the answer asked for.
func (c *Client) once(ctx context.Context, method, path string, data []byte) (http.Header, []byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var body io.Reader
	if data != nil {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return nil, nil, -1, c.errorf(method, path, 0, "%v", err)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", "archiplan")
	if c.Auth != nil {
		c.Auth(req.Header)
	}
	hc := http.Client{Timeout: Timeout}
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = sameHost
	resp, err := hc.Do(req)
	if err != nil {
		// the error without the URL's query, never a header
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		wait := time.Duration(0)
		if method == http.MethodPost && !refused(err) {
			wait = -1 // the forge may have done it: asking again could do it twice
		}
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			wait = -1
		}
		return nil, nil, wait, c.errorf(method, path, 0, "%v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return resp.Header, nil, 0, c.errorf(method, path, 0, "read the answer: %v", err)
	}
	if len(raw) > MaxAnswer {
		return resp.Header, nil, -1, c.errorf(method, path, resp.StatusCode, "the answer is longer than %d bytes", MaxAnswer)
	}
	if resp.StatusCode/100 == 2 {
		return resp.Header, raw, 0, nil
	}
	msg := resp.Status
	if text := messageOf(raw); text != "" {
		msg += ": " + text
	}
	return resp.Header, nil, retryWait(method, resp), c.errorf(method, path, resp.StatusCode, "%s", msg)
}

// sameHost follows a redirect only to the host asked (Go drops Authorization on a redirect to
// another host, but not GitLab's PRIVATE-TOKEN): the token never travels elsewhere.
func sameHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return http.ErrUseLastResponse
	}
	return nil
}

// refused is a connection the server never accepted: nothing was done, a POST may be sent again.
func refused(err error) bool {
	return strings.Contains(err.Error(), "connection refused")
}

// retryWait says whether and when an error answer is worth asking again: 429 always (nothing was
// done), 408 and 5xx for requests that are safe to repeat (a POST that failed with 502 may have
// opened the pull request).
func retryWait(method string, resp *http.Response) time.Duration {
	c := resp.StatusCode
	switch {
	case c == http.StatusTooManyRequests:
	case c == http.StatusForbidden && resp.Header.Get("X-Ratelimit-Remaining") == "0": // GitHub's primary rate limit
	case (c == http.StatusRequestTimeout || c >= 500) && method != http.MethodPost:
	default:
		return -1
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return max(time.Duration(s*float64(time.Second)), time.Millisecond)
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), time.Millisecond)
		}
	}
	if v := resp.Header.Get("X-Ratelimit-Reset"); v != "" && c == http.StatusForbidden {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			return max(time.Until(time.Unix(s, 0)), time.Millisecond)
		}
	}
	return 0
}

// messageOf is a forge's error message: {"message": ...} (Gitea, GitHub, GitLab), GitLab's
// {"error": ...} or {"message": {"field": [...]}}; a page that is none of these gives nothing.
func messageOf(raw []byte) string {
	var e struct {
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return ""
	}
	for _, m := range []json.RawMessage{e.Message, e.Error} {
		if len(m) == 0 {
			continue
		}
		var s string
		if json.Unmarshal(m, &s) == nil {
			return oneLine(s, MaxErrorText)
		}
		return oneLine(string(m), MaxErrorText) // a structure (GitLab's field errors): its JSON, cut
	}
	return ""
}

// Error is a forge's refusal or a failed request.
type Error struct {
	Forge  string
	Method string
	Path   string // without the query
	Status int    // the HTTP status, 0 when there was no answer
	Text   string // one line
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s %s: %s", e.Forge, e.Method, e.Path, e.Text)
}

// Unwrap makes every Error a forge.ErrForge, and the statuses their sentinels.
func (e *Error) Unwrap() []error {
	errs := []error{forge.ErrForge}
	switch e.Status {
	case http.StatusNotFound:
		errs = append(errs, forge.ErrNotFound)
	case http.StatusUnauthorized, http.StatusForbidden:
		errs = append(errs, forge.ErrAuth)
	case http.StatusConflict, http.StatusMethodNotAllowed, http.StatusUnprocessableEntity:
		errs = append(errs, forge.ErrRefused)
	}
	return errs
}

func (c *Client) errorf(method, path string, status int, format string, args ...any) error {
	text := fmt.Sprintf(format, args...)
	if c.Token != "" {
		text = strings.ReplaceAll(text, c.Token, "[token]")
	}
	if p, _, ok := strings.Cut(path, "?"); ok {
		path = p
	}
	return &Error{Forge: c.Forge, Method: method, Path: path, Status: status, Text: oneLine(text, 2*MaxErrorText)}
}

// oneLine keeps a message to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

// Status is an error's HTTP status (0 when it has none).
func Status(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// PathEscape escapes one segment of a path (a branch, a project's full path).
func PathEscape(s string) string { return url.PathEscape(s) }

// MaxPages bounds a listing: no pull request archiplan reads has more pages of reviews or
// comments than this.
const MaxPages = 50

// Pages calls get for page 1, 2, ... until it returns fewer than size items (or stop).
func Pages(size int, get func(page int) (n int, stop bool, err error)) error {
	for page := 1; page <= MaxPages; page++ {
		n, stop, err := get(page)
		if err != nil || stop || n < size {
			return err
		}
	}
	return nil
}

// Note is a comment as KeepComment needs it.
type Note struct {
	ID   int64
	Body string
	User string
}

// KeepComment keeps one comment per marker on a pull request: list gives a page of its comments
// and how many items the page had (of size at most; a forge's list may hold more than comments),
// mine says whether a comment is the token's user's; the first comment
// of that user carrying the marker is edited, or a new one is created.
func KeepComment(size int, list func(page int) ([]Note, int, error), mine func(Note) bool, marker, body string,
	edit func(id int64, body string) error, create func(body string) error) error {
	var id int64
	err := Pages(size, func(page int) (int, bool, error) {
		notes, items, err := list(page)
		for _, n := range notes {
			if mine(n) && forge.HasMarker(n.Body, marker) {
				id = n.ID
				return items, true, err
			}
		}
		return items, false, err
	})
	if err != nil {
		return err
	}
	if id != 0 {
		return edit(id, forge.Marked(marker, body))
	}
	return create(forge.Marked(marker, body))
}
