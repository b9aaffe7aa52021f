package wire

import (
	"unicode/utf16"
	"unicode/utf8"
)

// unquoteBytes decodes the escapes of a JSON string's content (the bytes between the quotes,
// already checked by skipString). A lone surrogate becomes U+FFFD, as encoding/json does.
func unquoteBytes(s []byte) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return out, false
		}
		switch s[i+1] {
		case '"', '\\', '/':
			out = append(out, s[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				return out, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return out, false
		}
		i += 2
	}
	return out, true
}

func hex4(s []byte, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[at : at+4] {
		v := hexValue(c)
		if v < 0 {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

// Unquote decodes one JSON string value (data starts with '"', whitespace around allowed).
func Unquote(data []byte) (string, error) {
	data = Trim(data)
	if len(data) == 0 || data[0] != '"' {
		return "", expected("string", data)
	}
	end, esc, err := skipString(data, 0)
	if err != nil {
		return "", err
	}
	if end != len(data) {
		return "", syntaxError(end, "unexpected data after the string")
	}
	if !esc {
		return string(data[1 : end-1]), nil
	}
	b, _ := unquoteBytes(data[1 : end-1])
	return string(b), nil
}

// EqualString reports whether the JSON string value data decodes to s, without allocating
// unless data has escapes.
func EqualString(data []byte, s string) bool {
	data = Trim(data)
	if len(data) < 2 || data[0] != '"' {
		return false
	}
	end, esc, err := skipString(data, 0)
	if err != nil || end != len(data) {
		return false
	}
	if !esc {
		return string(data[1:end-1]) == s
	}
	b, _ := unquoteBytes(data[1 : end-1])
	return string(b) == s
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Control characters, '"' and '\\' are escaped;
// invalid UTF-8 becomes U+FFFD; everything else is written as is (UTF-8, U+2028 included).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Requote returns the JSON text of the string data holds (data: a JSON string, checked) as
// JavaScript's JSON.stringify writes that string, for a message that quotes a peer's text in the
// words of the TypeScript runtime: the escapes AppendString writes, every other escape decoded
// ("a\u0041" is "aA"), and a lone surrogate kept as its escape in lower case (decoding it would
// give U+FFFD).
func Requote(data []byte) []byte {
	data = Trim(data)
	s := data[1 : len(data)-1]
	b := []byte{'"'}
	from := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		r, ok := hex4(s, i+2)
		if s[i+1] != 'u' || !ok {
			i++ // an escaped character: not the start of another escape
			continue
		}
		if utf16.IsSurrogate(r) {
			if r2, ok := hex4(s, i+8); ok && s[i+6] == '\\' && s[i+7] == 'u' && utf16.DecodeRune(r, r2) != utf8.RuneError {
				i += 11 // a pair: decoded with the text around it
				continue
			}
			b = appendDecoded(b, s[from:i])
			b = append(b, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
			from = i + 6
		}
		i += 5
	}
	b = appendDecoded(b, s[from:])
	return append(b, '"')
}

// appendDecoded appends a JSON string's content s (escapes, no lone surrogate) written as AppendString writes it.
func appendDecoded(b, s []byte) []byte {
	text, _ := unquoteBytes(s)
	q := AppendString(nil, string(text))
	return append(b, q[1:len(q)-1]...)
}
