package features

import (
	"net/url"
	"regexp"
	"strings"
)

// URITemplate is an RFC 6570 URI template matched against URIs: the operators of levels 1-3
// ({var}, {+var}, {#var}, {.var}, {/var}, {;var}, {?var}, {&var}); a {var*} is one value.
type URITemplate struct {
	Template  string
	Variables []string
	re        *regexp.Regexp
	query     []string
	groups    map[string]string
}

var expression = regexp.MustCompile(`\{([+#./;?&]?)([^}]*)\}`)

// ParseURITemplate parses a URI template.
func ParseURITemplate(template string) (*URITemplate, error) {
	t := &URITemplate{Template: template, groups: map[string]string{}}
	var sb strings.Builder
	sb.WriteString("^")
	pos := 0
	n := 0
	group := func(name string) string {
		n++
		g := "v" + itoa(n)
		t.groups[name] = g
		return g
	}
	for _, m := range expression.FindAllStringSubmatchIndex(template, -1) {
		sb.WriteString(regexp.QuoteMeta(template[pos:m[0]]))
		op := template[m[2]:m[3]]
		var names []string
		for _, v := range strings.Split(template[m[4]:m[5]], ",") {
			if v = strings.TrimSuffix(strings.TrimSpace(v), "*"); v != "" {
				if i := strings.IndexByte(v, ':'); i >= 0 {
					v = v[:i]
				}
				names = append(names, v)
			}
		}
		t.Variables = append(t.Variables, names...)
		switch op {
		case "?", "&":
			t.query = append(t.query, names...)
			sb.WriteString(`(?:[?&][^#]*)?`)
		case "+", "#":
			if op == "#" {
				sb.WriteString("#")
			}
			for i, name := range names {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString("(?P<" + group(name) + ">.*?)")
			}
		case "/", ".", ";":
			for _, name := range names {
				sb.WriteString("(?:" + regexp.QuoteMeta(op))
				if op == ";" {
					sb.WriteString(regexp.QuoteMeta(name + "="))
				}
				sb.WriteString("(?P<" + group(name) + ">[^/?#.;]*))?")
			}
		default:
			for i, name := range names {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString("(?P<" + group(name) + ">[^/?#,]+)")
			}
		}
		pos = m[1]
	}
	sb.WriteString(regexp.QuoteMeta(template[pos:]) + "$")
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil, err
	}
	t.re = re
	return t, nil
}

// Match returns the template's variables in uri (percent-decoded), or false when uri does not
// match.
func (t *URITemplate) Match(uri string) (map[string]string, bool) {
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	out := map[string]string{}
	for name, g := range t.groups {
		if i := t.re.SubexpIndex(g); i >= 0 && m[i] != "" {
			if v, err := url.PathUnescape(m[i]); err == nil {
				out[name] = v
			} else {
				out[name] = m[i]
			}
		}
	}
	if len(t.query) > 0 {
		if u, err := url.Parse(uri); err == nil {
			q := u.Query()
			for _, name := range t.query {
				if v, ok := q[name]; ok && len(v) > 0 {
					out[name] = v[0]
				}
			}
		}
	}
	return out, true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
