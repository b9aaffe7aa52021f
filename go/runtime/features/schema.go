package features

import (
	"bytes"
	"errors"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled JSON Schema of a tool (its inputSchema or outputSchema): 2020-12 unless
// $schema names another draft; formats are asserted; nothing is ever fetched ($ref to another
// document fails to compile).
type Schema struct{ s *jsonschema.Schema }

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("remote $ref is not fetched: " + url)
}

// CompileSchema compiles a JSON Schema given as JSON text; what names it in errors.
func CompileSchema(schema []byte, what string) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, errors.New(what + ": not JSON: " + err.Error())
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	const url = "mcpgen:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, errors.New(what + ": " + err.Error())
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, errors.New(what + ": invalid JSON Schema: " + err.Error())
	}
	return &Schema{s: s}, nil
}

var printer = message.NewPrinter(language.English)

// Check validates a JSON value; it returns nothing when the value passes, else up to limit
// problems, each a failing path and what it breaks (`passengers: minimum: got 0, want 1`).
func (s *Schema) Check(value []byte, limit int) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return []string{"(arguments): not JSON"}
	}
	err = s.s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			path := strings.Join(e.InstanceLocation, ".")
			if path == "" {
				path = "(arguments)"
			}
			out = append(out, path+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
