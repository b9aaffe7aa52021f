/**
 * The one way the CLI prints a URL it was given (a flag value, a connection string): its
 * credentials hidden. Usage errors, start-up lines and diagnostics of `serve`, `call` and the
 * rest pass every user-given URL through {@link redactUrl}.
 */

/**
 * `url` fit to print: the user name and password of its userinfo as `***`, and the value of
 * every `name=value` pair of its query and fragment as `***`, its name kept (`?sv=***&sig=***`):
 * a credential's name tells nothing (Azure SAS `sig=`, S3 `X-Amz-Signature=`, an API's own
 * `?k=`), and the fragment is where OAuth's implicit grant puts `#access_token=`. An empty value,
 * a name without `=` and a fragment without one (an anchor, a JSON pointer `#/$defs/X`: what
 * schema and link errors name) are kept. A string that is no URL is redacted the same way by
 * pattern: everything up to its last `@` before the path, `name=value` pairs after `?`, `&`,
 * `;` or `#`. Never throws.
 */
export function redactUrl(url: string): string {
  let parsed = false;
  try {
    parsed = new URL(url).host !== '';
  } catch {
    parsed = false;
  }
  // the text as given, only the secrets replaced: URL's href would normalise the rest (a trailing
  // slash, percent-encoded braces), and the message would no longer show what the user wrote
  return redactParams(redactUserinfo(url, parsed));
}

/**
 * `scheme://user:pw@host…` and `user:pw@host…` with the user name and password as `***` each
 * (`exact`: the text parses as a URL with a host, so its userinfo is `user[:password]`), else
 * everything before the authority's last `@` as `***`.
 */
function redactUserinfo(text: string, exact: boolean): string {
  const start = text.indexOf('//') >= 0 ? text.indexOf('//') + 2 : 0;
  const end = text.slice(start).search(/[/?#]/);
  const authority = end < 0 ? text.slice(start) : text.slice(start, start + end);
  const at = authority.lastIndexOf('@');
  if (at < 0) return text;
  let userinfo = '***';
  if (exact) {
    const colon = authority.indexOf(':');
    const [user, password] =
      colon >= 0 && colon < at
        ? [authority.slice(0, colon), authority.slice(colon + 1, at)]
        : [authority.slice(0, at), undefined];
    userinfo = `${user ? '***' : ''}${password === undefined ? '' : `:${password ? '***' : ''}`}`;
  }
  return `${text.slice(0, start)}${userinfo}${text.slice(start + at)}`;
}

/** The value of every `name=value` pair after `?`, `&`, `;` or `#` as `***` (an empty one kept). */
function redactParams(text: string): string {
  return text.replace(/([?&;#])([^=&#;?]*)=([^&#;]+)/g, '$1$2=***');
}

/** `text` with each URL in it (`scheme://…` up to whitespace or a quote, without closing punctuation) passed through {@link redactUrl}. */
export function redactText(text: string): string {
  return text.replace(/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]+/g, (token) => {
    // (a sentence's closing punctuation is no part of the URL)
    const url = token.replace(/[).,;:\]]+$/, '');
    return redactUrl(url) + token.slice(url.length);
  });
}
