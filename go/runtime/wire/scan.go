// Package wire reads and writes the JSON of mcpgen's generated types and of the runtime: a
// validating scanner that walks objects and arrays without building them, decoders whose errors
// name the failing path (DecodeError), and appenders that write JSON into a caller's buffer.
// It knows nothing of JSON-RPC or MCP.
//
// Input is JSON text as RFC 8259 defines it: UTF-8, no trailing commas, no comments, nesting at
// most MaxDepth deep. Scanning allocates nothing; decoding allocates what it returns.
package wire

import (
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects the scanner accepts (the outermost
// value is level 1): 512, the bound on a peer's JSON in the TypeScript and Python runtimes too.
// Every message is scanned once before it is used (jsonrpc.Decode), so a deeper one is a parse
// error (-32700) there, on every transport, after at most MaxDepth levels of recursion
// (BenchmarkDecodeDeep in ../jsonrpc: a 4 MiB [[[…]]] body).
const MaxDepth = 512

// SyntaxError is JSON text that does not parse. Offset is the byte where parsing stopped.
type SyntaxError struct {
	Offset int
	Msg    string
}

// Error is Msg and the byte where parsing stopped; a text nested too deep is TooDeep alone, the
// words of the TypeScript and Python runtimes (and of Go over HTTP).
func (e *SyntaxError) Error() string {
	if e.Msg == TooDeep {
		return e.Msg
	}
	return e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

func syntaxError(at int, msg string) error { return &SyntaxError{Offset: at, Msg: msg} }

// TooDeep is the Msg of the SyntaxError of a text nested deeper than MaxDepth: the words the
// TypeScript and Python runtimes use for it.
const TooDeep = "JSON nested deeper than 512 levels"

// isSpace reports JSON whitespace (RFC 8259 §2: space, tab, LF, CR).
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// Valid reports whether data is exactly one JSON value (whitespace around it allowed).
func Valid(data []byte) bool {
	return Check(data) == nil
}

// Check returns nil when data is exactly one JSON value (whitespace around it allowed), else a
// *SyntaxError.
func Check(data []byte) error {
	end, err := Skip(data, 0)
	if err != nil {
		return err
	}
	if end = skipSpace(data, end); end != len(data) {
		return syntaxError(end, "unexpected data after the JSON value")
	}
	return nil
}

// Skip returns the offset just past the JSON value that starts at data[i] (after whitespace),
// checking its syntax on the way.
func Skip(data []byte, i int) (int, error) {
	return skipValue(data, i, 0)
}

func skipValue(data []byte, i, depth int) (int, error) {
	i = skipSpace(data, i)
	if i >= len(data) {
		return i, syntaxError(i, "unexpected end of JSON input")
	}
	switch c := data[i]; c {
	case '{':
		return skipObject(data, i, depth+1)
	case '[':
		return skipArray(data, i, depth+1)
	case '"':
		end, _, err := skipString(data, i)
		return end, err
	case 't':
		return skipLiteral(data, i, "true")
	case 'f':
		return skipLiteral(data, i, "false")
	case 'n':
		return skipLiteral(data, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			end, _, err := skipNumber(data, i)
			return end, err
		}
		return i, syntaxError(i, "invalid character "+quoteByte(c)+" looking for a value")
	}
}

func quoteByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return "0x" + strconv.FormatUint(uint64(c), 16)
	}
	return strconv.QuoteRune(rune(c))
}

// skipLiteral skips lit (true, false, null) at data[i]; the error names the first byte that
// differs ("this" is an invalid character 'h' in literal true at byte 1).
func skipLiteral(data []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(data) {
			return i + k, syntaxError(i+k, "unexpected end of JSON input in literal "+lit)
		}
		if data[i+k] != lit[k] {
			return i + k, syntaxError(i+k, "invalid character "+quoteByte(data[i+k])+" in literal "+lit)
		}
	}
	return i + len(lit), nil
}

func skipObject(data []byte, i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, syntaxError(i, TooDeep)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, syntaxError(i, "expected a member name")
		}
		end, _, err := skipString(data, i)
		if err != nil {
			return end, err
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return i, syntaxError(i, "expected ':' after a member name")
		}
		if i, err = skipValue(data, i+1, depth); err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, syntaxError(i, "unexpected end of JSON input in an object")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, syntaxError(i, "expected ',' or '}' in an object")
		}
	}
}

func skipArray(data []byte, i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, syntaxError(i, TooDeep)
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for {
		var err error
		if i, err = skipValue(data, i, depth); err != nil {
			return i, err
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, syntaxError(i, "unexpected end of JSON input in an array")
		}
		switch data[i] {
		case ',':
			i++
		case ']':
			return i + 1, nil
		default:
			return i, syntaxError(i, "expected ',' or ']' in an array")
		}
	}
}

// skipString returns the offset past the string starting at data[i] (a '"') and whether it has
// escapes. Control characters, bad escapes and invalid UTF-8 are errors.
func skipString(data []byte, i int) (end int, escaped bool, err error) {
	start := i
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return i, escaped, syntaxError(i, "unexpected end of JSON input in a string")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return i, escaped, syntaxError(i, "unexpected end of JSON input in a \\u escape")
				}
				for _, h := range data[i+2 : i+6] {
					if hexValue(h) < 0 {
						return i, escaped, syntaxError(i, "invalid \\u escape")
					}
				}
				i += 6
			default:
				return i, escaped, syntaxError(i, "invalid escape "+quoteByte(data[i+1]))
			}
		case c < 0x20:
			return i, escaped, syntaxError(i, "control character "+quoteByte(c)+" in a string")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return i, escaped, syntaxError(i, "invalid UTF-8 in a string")
			}
			i += size
		}
	}
	return start, escaped, syntaxError(len(data), "unexpected end of JSON input in a string")
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// skipNumber returns the offset past the number starting at data[i] and whether it is written
// as an integer (no fraction, no exponent).
func skipNumber(data []byte, i int) (end int, integer bool, err error) {
	start := i
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return i, false, syntaxError(i, "invalid number")
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		integer = false
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, false, syntaxError(i, "invalid number: digit expected after '.'")
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		integer = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, false, syntaxError(i, "invalid number: digit expected in the exponent")
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i == start {
		return i, false, syntaxError(i, "invalid number")
	}
	return i, integer, nil
}

// Trim returns data without the JSON whitespace around it.
func Trim(data []byte) []byte {
	i, j := 0, len(data)
	for i < j && isSpace(data[i]) {
		i++
	}
	for j > i && isSpace(data[j-1]) {
		j--
	}
	return data[i:j]
}
