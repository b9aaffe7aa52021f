package wire

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckAgreesWithEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.5e10`, `true`, `null`, ` {"a" : [1, 2, {"b": null}]} `,
		`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `-`, `1e`, `"\x"`, `"\u12"`, `"a` + "\x01" + `"`,
		`{"a"}`, `{a:1}`, `[1 2]`, `tru`, `nul`, `"\ud800"`, `"😀"`, `{"a":1}x`, ``, ` `,
		`[[[[]]]]`, `{"a":{"b":{"c":[true,false,null]}}}`, `"\/\b\f\n\r\t\\\""`,
	}
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

// JSON text is UTF-8 (RFC 8259 §8.1); encoding/json accepts invalid bytes in strings and
// replaces them, the scanner refuses them (field case 005: such a line is a parse error).
func TestInvalidUTF8Refused(t *testing.T) {
	for _, c := range []string{"\"\xff\"", "{\"a\":\"\xc3\"}", "[\"\xed\xa0\x80\"]"} {
		if Valid([]byte(c)) {
			t.Errorf("Valid(%q) accepted invalid UTF-8", c)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if Valid([]byte(deep)) {
		t.Fatal("nesting deeper than MaxDepth accepted")
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if !Valid([]byte(ok)) {
		t.Fatal("nesting of MaxDepth refused")
	}
}

func TestMembers(t *testing.T) {
	o, err := Members([]byte(` { "a" : 1 , "b\u0063" : [ 2 , 3 ] , "d" : { } } `))
	if err != nil {
		t.Fatal(err)
	}
	var keys, values []string
	for o.Next() {
		keys = append(keys, string(o.Key()))
		values = append(values, string(o.Value()))
	}
	if err := o.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(keys, ",") != "a,bc,d" || strings.Join(values, "|") != "1|[ 2 , 3 ]|{ }" {
		t.Fatalf("keys %q values %q", keys, values)
	}
	for _, bad := range []string{`{"a":1,}`, `{"a":1} x`, `{"a" 1}`, `{"a":}`} {
		o, err := Members([]byte(bad))
		if err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		for o.Next() {
		}
		if o.Err() == nil {
			t.Errorf("%s: no syntax error", bad)
		}
	}
	if _, err := Members([]byte(`[1]`)); err == nil || err.Error() != "(root): expected object, got array" {
		t.Fatalf("not an object: %v", err)
	}
}

func TestElementsAndCount(t *testing.T) {
	n, err := Count([]byte(`[1, "two", {"three": [3]}, null]`))
	if err != nil || n != 4 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	if n, err := Count([]byte(`[]`)); err != nil || n != 0 {
		t.Fatalf("Count([]) = %d, %v", n, err)
	}
	if _, err := Count([]byte(`[1,,2]`)); err == nil {
		t.Fatal("[1,,2] counted")
	}
}

func TestUnquoteAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range []string{`"plain"`, `"café — 中文 😀"`, `"a\nb\u0041\ud83d\ude00"`, `"\ud800x"`, `"\udc00"`, `"\\\"\/"`, `"a` + "\u2028" + `b"`} {
		var want string
		if err := json.Unmarshal([]byte(c), &want); err != nil {
			t.Fatal(err)
		}
		got, err := Unquote([]byte(c))
		if err != nil || got != want {
			t.Errorf("Unquote(%s) = %q, %v; want %q", c, got, err, want)
		}
	}
}

func TestAppendStringRoundTrips(t *testing.T) {
	for _, s := range []string{"", "plain", "first\nsecond\r\nthird\u2028fourth", "\x00\x1f\"\\", "café 😀", "bad \xff utf8"} {
		b := AppendString(nil, s)
		if !utf8.Valid(b) || strings.ContainsAny(string(b), "\n\r") {
			t.Errorf("AppendString(%q) = %q: raw line break or invalid UTF-8", s, b)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("AppendString(%q) = %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); back != want {
			t.Errorf("round trip of %q gave %q", s, back)
		}
	}
}

func TestIntAndFloat(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-1": -1, "1.0": 1, "1e2": 100, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64} {
		if got, err := Int([]byte(in)); err != nil || got != want {
			t.Errorf("Int(%s) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"1.5", "9223372036854775808", `"1"`, "true", "1e400"} {
		if _, err := Int([]byte(bad)); err == nil {
			t.Errorf("Int(%s) accepted", bad)
		}
	}
	for in, want := range map[string]float64{"0.5": 0.5, "-2": -2, "1e-7": 1e-7} {
		if got, err := Float([]byte(in)); err != nil || got != want {
			t.Errorf("Float(%s) = %v, %v", in, got, err)
		}
	}
}

func TestAppendFloatLikeJSONStringify(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 0.5: "0.5", -2.25: "-2.25", 1e21: "1e+21", 1e-7: "1e-7", 123456789012: "123456789012", 1.5e-10: "1.5e-10", 0: "0"} {
		b, err := AppendFloat(nil, v)
		if err != nil || string(b) != want {
			t.Errorf("AppendFloat(%v) = %s, %v; want %s", v, b, err, want)
		}
	}
	if _, err := AppendFloat(nil, math.NaN()); err == nil {
		t.Error("NaN written")
	}
}

func TestKindOf(t *testing.T) {
	for in, want := range map[string]string{`{}`: "object", `[]`: "array", `""`: "string", `1`: "integer", `1.0`: "integer", `1.5`: "number", `true`: "boolean", `null`: "null", ``: "nothing"} {
		if got := KindOf([]byte(in)); got != want {
			t.Errorf("KindOf(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestDecodeErrorPath(t *testing.T) {
	err := At(AtIndex(At(Required("data"), "x"), 2), "content")
	if err.Error() != "content[2].x.data: required" {
		t.Fatal(err)
	}
	err = At(AtIndex(Errorf("expected string, got integer"), 0), "params")
	if got := err.Error(); got != "params[0]: expected string, got integer" {
		t.Fatal(got)
	}
	if At(nil, "x") != nil {
		t.Fatal("At(nil) is not nil")
	}
}

func TestListMapTag(t *testing.T) {
	xs, err := List([]byte(`["a","b"]`), -1, String)
	if err != nil || len(xs) != 2 || xs[1] != "b" {
		t.Fatal(xs, err)
	}
	if _, err := List([]byte(`["a",2]`), -1, String); err == nil || err.Error() != "[1]: expected string, got integer" {
		t.Fatal(err)
	}
	if _, err := List([]byte(`["a","b"]`), 1, String); err == nil {
		t.Fatal("maxItems not checked")
	}
	m, err := Map([]byte(`{"a":1,"b":2}`), Int)
	if err != nil || m["b"] != 2 {
		t.Fatal(m, err)
	}
	i, err := Tag([]byte(`{"x":1,"type":"image"}`), "type", []string{"text", "image"})
	if err != nil || i != 1 {
		t.Fatal(i, err)
	}
	if _, err := Tag([]byte(`{"type":"video"}`), "type", []string{"text", "image"}); err == nil || !strings.HasPrefix(err.Error(), "type: expected one of") {
		t.Fatal(err)
	}
}

func TestAppendMapSortedAndExtra(t *testing.T) {
	b, err := AppendRawMap(nil, map[string]json.RawMessage{"b": json.RawMessage(`2`), "a": json.RawMessage(` [1] `)})
	if err != nil || string(b) != `{"a":[1],"b":2}` {
		t.Fatal(string(b), err)
	}
	b = append([]byte(`{"name":"x"`), ""...)
	b, err = AppendExtra(b, map[string]json.RawMessage{"name": json.RawMessage(`"dup"`), "z": json.RawMessage(`true`)}, []string{"name"}, AppendRaw)
	if err != nil || string(append(b, '}')) != `{"name":"x","z":true}` {
		t.Fatal(string(b), err)
	}
	if _, err := AppendRaw(nil, json.RawMessage(`{bad`)); err == nil {
		t.Fatal("bad raw JSON written")
	}
}

func TestScanningAllocatesNothing(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	allocs := testing.AllocsPerRun(100, func() {
		o, _ := Members(data)
		for o.Next() {
			switch string(o.Key()) {
			case "params":
				if _, err := Skip(o.Value(), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

// Requote writes the string a JSON text holds as JavaScript's JSON.stringify does (the expected
// texts are JSON.stringify(JSON.parse(data))): escapes decoded, a lone surrogate kept escaped.
func TestRequoteAsJSONStringify(t *testing.T) {
	for _, c := range [][2]string{
		{`"a\u0041"`, `"aA"`},
		{`"\ud800"`, `"\ud800"`},
		{`"x\uDC00y"`, `"x\udc00y"`},
		{`"\ud83d\ude00\u00e9\/"`, `"😀é/"`},
		{`"\\u0041"`, `"\\u0041"`},
		{`"\n\u0001\"\\"`, `"\n\u0001\"\\"`},
		{`"\ud800\ud800"`, `"\ud800\ud800"`},
		{`"\ud800\u0041"`, `"\ud800A"`},
		{`"é€\u2028"`, "\"é€\u2028\""},
		{`"\ud83d"`, `"\ud83d"`},
		{`"\uDBFF\uDFFF\uD800x"`, "\"\U0010FFFF\\ud800x\""},
		{` "plain" `, `"plain"`},
	} {
		if got := string(Requote([]byte(c[0]))); got != c[1] {
			t.Errorf("Requote(%s) = %s, want %s", c[0], got, c[1])
		}
	}
}
