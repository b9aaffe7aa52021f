package wire

// Object walks the members of one JSON object in order, checking syntax as it goes:
//
//	it, err := wire.Members(data)
//	for it.Next() { key, value := it.Key(), it.Value() … }
//	if err := it.Err(); err != nil { … }
//
// Keys and values are slices of data (a key with escapes is decoded into new memory).
type Object struct {
	data   []byte
	i      int
	key    []byte
	val    []byte
	err    error
	ended  bool
	escKey bool
}

// Members starts walking the object data (whitespace around it allowed); the error is a
// *DecodeError when data is not an object.
func Members(data []byte) (Object, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return Object{}, expected("object", data)
	}
	o := Object{data: data, i: skipSpace(data, i+1)}
	if o.i < len(o.data) && o.data[o.i] == '}' {
		o.ended = true
		o.i++
		o.err = o.tail()
	}
	return o, nil
}

// Next moves to the next member; false at the end of the object or on a syntax error (Err).
func (o *Object) Next() bool {
	if o.ended || o.err != nil {
		return false
	}
	d := o.data
	i := o.i
	if i >= len(d) || d[i] != '"' {
		o.err = syntaxError(i, "expected a member name")
		return false
	}
	end, esc, err := skipString(d, i)
	if err != nil {
		o.err = err
		return false
	}
	o.key, o.escKey = d[i+1:end-1], esc
	i = skipSpace(d, end)
	if i >= len(d) || d[i] != ':' {
		o.err = syntaxError(i, "expected ':' after a member name")
		return false
	}
	start := skipSpace(d, i+1)
	if i, err = skipValue(d, start, 1); err != nil {
		o.err = err
		return false
	}
	o.val = d[start:i]
	i = skipSpace(d, i)
	switch {
	case i >= len(d):
		o.err = syntaxError(i, "unexpected end of JSON input in an object")
		return false
	case d[i] == ',':
		o.i = skipSpace(d, i+1)
	case d[i] == '}':
		o.i = i + 1
		o.ended = true
		o.err = o.tail()
	default:
		o.err = syntaxError(i, "expected ',' or '}' in an object")
		return false
	}
	return true
}

// tail checks that nothing but whitespace follows the object.
func (o *Object) tail() error {
	if i := skipSpace(o.data, o.i); i != len(o.data) {
		return syntaxError(i, "unexpected data after the object")
	}
	return nil
}

// Key is the current member's name, unescaped. Compare it with `switch string(it.Key())`
// (no allocation); keep it with string(it.Key()).
func (o *Object) Key() []byte {
	if o.escKey {
		s, _ := unquoteBytes(o.key)
		return s
	}
	return o.key
}

// Value is the current member's value: one JSON value, no surrounding whitespace.
func (o *Object) Value() []byte { return o.val }

// Err is the syntax error that stopped the walk, if any.
func (o *Object) Err() error { return o.err }

// Array walks the elements of one JSON array, like Object.
type Array struct {
	data  []byte
	i     int
	val   []byte
	err   error
	ended bool
}

// Elements starts walking the array data (whitespace around it allowed); the error is a
// *DecodeError when data is not an array.
func Elements(data []byte) (Array, error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return Array{}, expected("array", data)
	}
	a := Array{data: data, i: skipSpace(data, i+1)}
	if a.i < len(a.data) && a.data[a.i] == ']' {
		a.ended = true
		a.i++
		if j := skipSpace(data, a.i); j != len(data) {
			a.err = syntaxError(j, "unexpected data after the array")
		}
	}
	return a, nil
}

// Next moves to the next element; false at the end of the array or on a syntax error (Err).
func (a *Array) Next() bool {
	if a.ended || a.err != nil {
		return false
	}
	d := a.data
	start := skipSpace(d, a.i)
	i, err := skipValue(d, start, 1)
	if err != nil {
		a.err = err
		return false
	}
	a.val = d[start:i]
	i = skipSpace(d, i)
	switch {
	case i >= len(d):
		a.err = syntaxError(i, "unexpected end of JSON input in an array")
		return false
	case d[i] == ',':
		a.i = i + 1
	case d[i] == ']':
		a.ended = true
		if j := skipSpace(d, i+1); j != len(d) {
			a.err = syntaxError(j, "unexpected data after the array")
		}
	default:
		a.err = syntaxError(i, "expected ',' or ']' in an array")
		return false
	}
	return true
}

// Value is the current element: one JSON value, no surrounding whitespace.
func (a *Array) Value() []byte { return a.val }

// Err is the syntax error that stopped the walk, if any.
func (a *Array) Err() error { return a.err }

// Count returns the number of elements of the array data, checking its syntax.
func Count(data []byte) (int, error) {
	a, err := Elements(data)
	if err != nil {
		return 0, err
	}
	n := 0
	for a.Next() {
		n++
	}
	return n, a.Err()
}
