/**
 * The one way the CLI prints a URL it was given (a flag value, a connection string): its
 * credentials hidden. Usage errors, start-up lines and diagnostics of `serve`, `call` and the
 * rest pass every user-given URL through {@link redactUrl}.
 */

/** Query parameter names whose values are credentials (password=, token=, api_key=, sig=, …). */
const SECRET_PARAM = /pass|pwd|secret|token|key|auth|cred|sig/i;

/**
 * `url` fit to print: the user name and password of its userinfo as `***`, and the value of each
 * query parameter whose name looks like a credential (password, pwd, secret, token, key, auth,
 * cred, sig in it, any case) as `***`. A string that is no URL is redacted the same way by
 * pattern: everything up to its last `@` before the path, and `name=value` pairs of such names.
 * Never throws.
 */
export function redactUrl(url: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u && u.host !== '') {
    if (u.password) u.password = '***';
    if (u.username) u.username = '***';
    // (rewrites the query text itself: URLSearchParams would re-encode the rest of it)
    return redactParams(u.href);
  }
  return redactParams(redactUserinfo(url));
}

/** `scheme://user:pw@host…` and `user:pw@host…` with everything before the authority's last `@` as `***`. */
function redactUserinfo(text: string): string {
  const start = text.indexOf('//') >= 0 ? text.indexOf('//') + 2 : 0;
  const end = text.slice(start).search(/[/?#]/);
  const authority = end < 0 ? text.slice(start) : text.slice(start, start + end);
  const at = authority.lastIndexOf('@');
  return at < 0 ? text : `${text.slice(0, start)}***${text.slice(start + at)}`;
}

/** Values of credential-like `name=value` pairs after `?`, `&` or `;` as `***`. */
function redactParams(text: string): string {
  return text.replace(/([?&;])([^=&#;?]*)=([^&#;]*)/g, (whole, sep: string, name: string) =>
    SECRET_PARAM.test(decodeName(name)) ? `${sep}${name}=***` : whole,
  );
}

/** A query parameter name, percent-decoded where it can be. */
function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** `text` with each URL in it (`scheme://…` up to whitespace or a quote, without closing punctuation) passed through {@link redactUrl}. */
export function redactText(text: string): string {
  return text.replace(/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]+/g, (token) => {
    // (a sentence's closing punctuation is no part of the URL)
    const url = token.replace(/[).,;:\]]+$/, '');
    return redactUrl(url) + token.slice(url.length);
  });
}
