package archixml

import (
	"bytes"
	"fmt"
)

// maxDepth bounds element nesting; Archi's deepest real diagrams nest a few dozen levels.
const maxDepth = 1000

// scanSpans finds every element of an XML document in document order (start tags in the order
// etree builds its tree), with its start tag and its whole extent. It refuses a DOCTYPE or any
// other declaration, so nothing downstream ever sees one. It checks only what it needs to; the
// parser checks well-formedness.
func scanSpans(data []byte) ([]span, error) {
	spans := make([]span, 0, bytes.Count(data, []byte("<"))/2+1)
	var stack []int
	i := 0
	for {
		j := bytes.IndexByte(data[i:], '<')
		if j < 0 {
			break
		}
		p := i + j
		rest := data[p:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			k := bytes.Index(rest[4:], []byte("-->"))
			if k < 0 {
				return nil, fmt.Errorf("unterminated comment at byte %d: %w", p, ErrMalformed)
			}
			i = p + 4 + k + 3
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			k := bytes.Index(rest[9:], []byte("]]>"))
			if k < 0 {
				return nil, fmt.Errorf("unterminated CDATA at byte %d: %w", p, ErrMalformed)
			}
			i = p + 9 + k + 3
		case bytes.HasPrefix(rest, []byte("<?")):
			k := bytes.Index(rest[2:], []byte("?>"))
			if k < 0 {
				return nil, fmt.Errorf("unterminated processing instruction at byte %d: %w", p, ErrMalformed)
			}
			i = p + 2 + k + 2
		case bytes.HasPrefix(rest, []byte("<!")):
			return nil, fmt.Errorf("declaration at byte %d: %w", p, ErrDoctype)
		case bytes.HasPrefix(rest, []byte("</")):
			k := bytes.IndexByte(rest, '>')
			if k < 0 || len(stack) == 0 {
				return nil, fmt.Errorf("stray end tag at byte %d: %w", p, ErrMalformed)
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			spans[top].end = p + k + 1
			i = p + k + 1
		default:
			q, err := tagEnd(data, p+1)
			if err != nil {
				return nil, err
			}
			s := span{start: p, tagEnd: q + 1}
			if data[q-1] == '/' {
				s.end = q + 1
				spans = append(spans, s)
			} else {
				if len(stack) >= maxDepth {
					return nil, fmt.Errorf("elements nested deeper than %d: %w", maxDepth, ErrMalformed)
				}
				stack = append(stack, len(spans))
				spans = append(spans, s)
			}
			i = q + 1
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("%d elements never closed: %w", len(stack), ErrMalformed)
	}
	return spans, nil
}

// tagEnd returns the index of the '>' that closes the tag begun before from, skipping quoted
// attribute values (which may hold '>').
func tagEnd(data []byte, from int) (int, error) {
	var quote byte
	for q := from; q < len(data); q++ {
		c := data[q]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '<':
			return 0, fmt.Errorf("'<' inside a tag at byte %d: %w", q, ErrMalformed)
		case c == '>':
			return q, nil
		}
	}
	return 0, fmt.Errorf("unterminated tag at byte %d: %w", from-1, ErrMalformed)
}
