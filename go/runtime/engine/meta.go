package engine

import (
	"mcpgen.dev/runtime/wire"
)

// MergeMeta appends the JSON of params (an object; nil writes {}) with entries set in its
// _meta: each entry is a member name and its raw JSON value, added in front of the members
// _meta had and replacing those of the same name. How a session adds what every request of a
// revision carries (the stateless revisions' io.modelcontextprotocol/* fields, a progress
// token) to params a caller built.
func MergeMeta(b []byte, params wire.Appender, entries [][2][]byte) ([]byte, error) {
	var src []byte
	if params != nil {
		scratch := getBuffer()
		defer putBuffer(scratch)
		var err error
		if src, err = params.AppendJSON(scratch.b[:0]); err != nil {
			return b, err
		}
		scratch.b = src
	}
	b = append(b, `{"_meta":{`...)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = wire.AppendString(b, string(e[0]))
		b = append(b, ':')
		b = append(b, e[1]...)
	}
	if len(src) == 0 {
		return append(b, "}}"...), nil
	}
	o, err := wire.Members(src)
	if err != nil {
		return b, wire.Errorf("params must be an object")
	}
	// the _meta members first, then the other members
	var rest [][2][]byte
	for o.Next() {
		if string(o.Key()) != "_meta" {
			rest = append(rest, [2][]byte{o.Key(), o.Value()})
			continue
		}
		meta, err := wire.Members(o.Value())
		if err != nil {
			return b, wire.At(wire.Errorf("must be an object"), "_meta")
		}
	member:
		for meta.Next() {
			for _, e := range entries {
				if string(e[0]) == string(meta.Key()) {
					continue member
				}
			}
			b = wire.Comma(b)
			b = wire.AppendString(b, string(meta.Key()))
			b = append(b, ':')
			b = append(b, meta.Value()...)
		}
	}
	if err := o.Err(); err != nil {
		return b, err
	}
	b = append(b, '}')
	for _, r := range rest {
		b = append(b, ',')
		b = wire.AppendString(b, string(r[0]))
		b = append(b, ':')
		b = append(b, r[1]...)
	}
	return append(b, '}'), nil
}
