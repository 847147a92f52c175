package render

import (
	"strconv"
	"strings"
)

// scalePath maps SVG path data drawn in a unit box onto the plane: x' = x0 + x*sx, y' = y0 + y*sy,
// so that icons and stretched figures keep one-pixel lines (a transform would scale the stroke).
// It knows the commands the icons use: M m L l H h V v A a Q q T t Z z.
func scalePath(d string, x0, y0, sx, sy float64) string {
	var b strings.Builder
	cmd := byte(0)
	i := 0
	argc := 0
	for i < len(d) {
		c := d[i]
		if c == ' ' || c == ',' {
			i++
			continue
		}
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			cmd = c
			argc = 0
			b.WriteByte(c)
			i++
			continue
		}
		v, j, ok := pathNumber(d, i)
		i = j
		if !ok {
			i++
			continue
		}
		out := scaleArg(cmd, argc, v, x0, y0, sx, sy)
		if argc > 0 || b.Len() > 0 && b.String()[b.Len()-1] != cmd {
			b.WriteByte(' ')
		}
		b.WriteString(f2(out))
		argc++
	}
	return b.String()
}

// pathNumber reads the number at d[i:], after any spaces and commas: its value and the index
// after it, or not ok (and the index after the spaces) where none is.
func pathNumber(d string, i int) (float64, int, bool) {
	for i < len(d) && (d[i] == ' ' || d[i] == ',') {
		i++
	}
	j := i
	if j < len(d) && (d[j] == '-' || d[j] == '+') {
		j++
	}
	dot := false
	for j < len(d) && (d[j] >= '0' && d[j] <= '9' || d[j] == '.' && !dot) {
		if d[j] == '.' {
			dot = true
		}
		j++
	}
	if j == i {
		return 0, i, false
	}
	v, err := strconv.ParseFloat(d[i:j], 64)
	if err != nil {
		return 0, i, false
	}
	return v, j, true
}

// scaleArg maps argument argc of path command cmd onto the plane: lengths are scaled, absolute
// coordinates also moved by (x0, y0); an arc's rotation and flags are kept as they are.
func scaleArg(cmd byte, argc int, v, x0, y0, sx, sy float64) float64 {
	abs := cmd >= 'A' && cmd <= 'Z'
	var out float64
	switch cmd | 0x20 {
	case 'h':
		out = v * sx
		if abs {
			out += x0
		}
	case 'v':
		out = v * sy
		if abs {
			out += y0
		}
	case 'a': // rx ry rotation large sweep x y
		switch argc % 7 {
		case 0:
			out = v * sx
		case 1:
			out = v * sy
		case 2, 3, 4:
			out = v
		case 5:
			out = v * sx
			if abs {
				out += x0
			}
		case 6:
			out = v * sy
			if abs {
				out += y0
			}
		}
	default: // pairs of x y
		if argc%2 == 0 {
			out = v * sx
			if abs {
				out += x0
			}
		} else {
			out = v * sy
			if abs {
				out += y0
			}
		}
	}
	return out
}
