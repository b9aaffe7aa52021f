// Command roundtrip decodes every case of cases.json as its type (a case with a method: as that
// client request's result, through the method map) and re-encodes it (see
// ../../own.ts). Usage: roundtrip <cases.json> <results.json>. Only the bindings and the
// standard library.
package main

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"

	mcp "mcpbinding"
)

type testCase struct {
	Type   string          `json:"type"`
	Method string          `json:"method"`
	Data   json.RawMessage `json:"data"`
}

type result struct {
	OK      json.RawMessage `json:"ok,omitempty"`
	Decoded string          `json:"decoded,omitempty"`
	Path    *string         `json:"path,omitempty"`
	Message string          `json:"message,omitempty"`
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	results := make([]result, len(cases))
	for i, c := range cases {
		var v any
		var err error
		if c.Method != "" {
			v, err = mcp.ClientRequests[c.Method].DecodeResult(c.Data)
		} else {
			v, err = mcp.Decode(c.Type, c.Data)
		}
		if err != nil {
			var de *mcp.DecodeError
			if !errors.As(err, &de) {
				panic(err)
			}
			path := de.Path
			results[i] = result{Path: &path, Message: de.Message}
			continue
		}
		out, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		results[i] = result{OK: out}
		if c.Method != "" {
			t := reflect.TypeOf(v)
			if t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			results[i].Decoded = t.Name()
		}
	}
	out, err := json.Marshal(results)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(os.Args[2], out, 0o644); err != nil {
		panic(err)
	}
}
