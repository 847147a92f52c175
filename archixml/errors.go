package archixml

import "errors"

var (
	// ErrNotModel means the input is not an Archi model (XML, but no archimate:model root).
	ErrNotModel = errors.New("not an archimate model")
	// ErrMalformed means the input is not well-formed XML or a readable archive.
	ErrMalformed = errors.New("malformed model file")
	// ErrDoctype means the input declares a DOCTYPE; models never do, and we never follow one.
	ErrDoctype = errors.New("DOCTYPE declarations are not allowed in a model")
	// ErrTooLarge means the input exceeds the size the loader accepts.
	ErrTooLarge = errors.New("model too large")
	// ErrNotFound means no object has the given id.
	ErrNotFound = errors.New("no such object")
	// ErrWrongKind means the object exists but is not of the kind the edit needs.
	ErrWrongKind = errors.New("object of the wrong kind")
	// ErrUnknownType means the type is not an ArchiMate type Archi knows.
	ErrUnknownType = errors.New("unknown type")
	// ErrNotAllowed means the ArchiMate relationship table does not allow the relationship.
	ErrNotAllowed = errors.New("relationship not allowed")
	// ErrWrongFolder means the folder is outside the layer folder the object belongs in.
	ErrWrongFolder = errors.New("folder outside the object's layer")
	// ErrInvalidText means a name or value holds characters XML cannot carry.
	ErrInvalidText = errors.New("text holds characters XML cannot carry")
	// ErrBadTable means a relationship table could not be read.
	ErrBadTable = errors.New("bad relationship table")
	// ErrDuplicate means the edit would add something that is already there.
	ErrDuplicate = errors.New("already present")
)
