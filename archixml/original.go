package archixml

// Original returns the bytes an object was read from, when it is unedited since (nothing in it
// changed): a view into the model's own copy of the file, no copy made. Two unedited objects with
// equal Original bytes are equal, which lets a comparison of two versions skip a large unchanged subtree
// without writing it out; an edited or new object has none (use XML).
func (o Object) Original() (string, bool) {
	sp, had := o.m.spans[o.e]
	if !had || o.m.state[o.e] != 0 {
		return "", false
	}
	return o.m.src[sp.start:sp.end], true
}
