package planners

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Retries of the HTTP planners, as the official SDKs do them: 408, 409, 429, 5xx (Anthropic's 529
// included) and connection errors, twice, 0.5 s doubling up to 8 s unless the answer says how
// long to wait (x-should-retry, Retry-After-Ms, Retry-After).
const (
	httpRetries  = 2
	httpMaxWait  = 60 * time.Second // a Retry-After longer than this is not waited for
	httpBackoff0 = 500 * time.Millisecond
	httpBackoffN = 8 * time.Second
)

// httpAPI is what every HTTP planner shares: one endpoint, its headers, bounded retries, a
// timeout per answer, and errors that name the API and the request, never the key.
type httpAPI struct {
	api    string // how errors name it: "the Responses API"
	cfg    Config
	client http.Client
	// backoff is the first wait between retries; tests shorten it.
	backoff time.Duration
}

// key is the API key from the environment variable the configuration names. An API without a
// key variable (a local server) gets no key.
func (h *httpAPI) key() (string, error) {
	if h.cfg.APIKeyEnv == "" {
		return "", nil
	}
	key := os.Getenv(h.cfg.APIKeyEnv)
	if key == "" {
		return "", fmt.Errorf("the API key is not set: export %s: %w", h.cfg.APIKeyEnv, ErrPlanner)
	}
	return key, nil
}

// endpoint is the base URL with path appended and the configured query parameters (Azure's
// api-version).
func (h *httpAPI) endpoint(path string) string {
	u := strings.TrimSuffix(h.cfg.BaseURL, "/") + path
	if len(h.cfg.Query) == 0 {
		return u
	}
	q := url.Values{}
	for k, v := range h.cfg.Query {
		q.Set(k, v)
	}
	return u + "?" + q.Encode()
}

// post sends one request to path, retrying what is worth retrying, and returns the answer's body
// and request id. auth sets the key's header.
func (h *httpAPI) post(ctx context.Context, path string, data []byte, auth func(http.Header)) ([]byte, string, error) {
	backoff := h.backoff
	if backoff == 0 {
		backoff = httpBackoff0
	}
	for attempt := 0; ; attempt++ {
		raw, reqID, wait, err := h.once(ctx, path, data, auth)
		if err == nil {
			return raw, reqID, nil
		}
		if wait < 0 || attempt >= httpRetries {
			return nil, reqID, err
		}
		if wait == 0 {
			wait = min(backoff<<attempt, httpBackoffN)
		}
		if wait > httpMaxWait {
			return nil, reqID, fmt.Errorf("%v; asked to wait %s: %w", errors.Unwrap(err), wait, ErrPlanner)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, reqID, fmt.Errorf("%v; asked to wait %s, longer than the time left: %w", errors.Unwrap(err), wait, ErrPlanner)
		}
		h.progress(fmt.Sprintf("%v; retry %d of %d in %s", errors.Unwrap(err), attempt+1, httpRetries, wait))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, reqID, h.timeout(ctx, err)
		}
	}
}

func (h *httpAPI) progress(s string) {
	if h.cfg.Progress != nil {
		h.cfg.Progress(h.cfg.Kind + ": " + s)
	}
}

func (h *httpAPI) timeout(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s after %s: %w", h.api, h.cfg.Timeout, ErrTimeout)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// once sends the request once. wait is -1 when a retry cannot help, 0 for the usual backoff, or
// how long the answer asked to wait.
func (h *httpAPI) once(ctx context.Context, path string, data []byte, auth func(http.Header)) ([]byte, string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint(path), bytes.NewReader(data))
	if err != nil {
		return nil, "", -1, fmt.Errorf("%v: %w", err, ErrPlanner)
	}
	for k, v := range h.cfg.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	auth(req.Header)
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", -1, h.timeout(ctx, err)
		}
		// the URL and the error, never the request's headers
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", 0, fmt.Errorf("%s at %s: %v: %w", h.api, h.cfg.BaseURL, err, ErrPlanner)
	}
	defer resp.Body.Close()
	reqID := resp.Header.Get("x-request-id")
	if reqID == "" {
		reqID = resp.Header.Get("request-id") // Anthropic's
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		if ctx.Err() != nil {
			return nil, reqID, -1, h.timeout(ctx, err)
		}
		return nil, reqID, 0, fmt.Errorf("read the answer: %v: %w", err, ErrPlanner)
	}
	if resp.StatusCode != http.StatusOK {
		msg := resp.Status
		code, text := apiErrorOf(raw)
		if text != "" {
			msg += ": " + text
		}
		err := fmt.Errorf("%s: %s (request %s): %w", h.api, msg, orNone(reqID), ErrPlanner)
		if code == "insufficient_quota" {
			return nil, reqID, -1, err
		}
		return nil, reqID, retryWait(resp), err
	}
	if !json.Valid(raw) {
		return nil, reqID, -1, fmt.Errorf("%s answered %s with no JSON (request %s): %w", h.api, resp.Status, orNone(reqID), ErrPlanner)
	}
	return raw, reqID, 0, nil
}

// apiErrorOf reads the code and message of an error answer, in the shapes the APIs use:
// OpenAI's and Azure's {"error":{"message","code"}}, Anthropic's {"type":"error","error":{"type",
// "message"}}, vLLM's {"message","code"}, Ollama's {"error":"..."}. A body that is none of
// these (an HTML page) gives nothing: the HTTP status says enough, and a page is no message.
func apiErrorOf(raw []byte) (code, message string) {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Code    any             `json:"code"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return "", ""
	}
	var inner struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
		Type    string `json:"type"`
	}
	var s string
	switch {
	case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
		message = inner.Message
		if c, ok := inner.Code.(string); ok {
			code = c
		} else {
			code = inner.Type
		}
	case json.Unmarshal(e.Error, &s) == nil:
		message = s
	default:
		message = e.Message
		if c, ok := e.Code.(string); ok {
			code = c
		}
	}
	return code, oneLine(message, 300)
}

// oneLine keeps a server's message to one line of at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = clip(s, n)
	}
	return s
}

// retryWait says whether and when an error answer is worth asking again.
func retryWait(resp *http.Response) time.Duration {
	switch resp.Header.Get("x-should-retry") {
	case "true":
	case "false":
		return -1
	default:
		c := resp.StatusCode
		if c != http.StatusRequestTimeout && c != http.StatusConflict && c != http.StatusTooManyRequests && c < 500 {
			return -1
		}
	}
	if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return max(time.Duration(ms*float64(time.Millisecond)), time.Millisecond)
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return max(time.Duration(s*float64(time.Second)), time.Millisecond)
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), time.Millisecond)
		}
	}
	return 0
}

func orNone(s string) string {
	if s == "" {
		return "without id"
	}
	return s
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
