/**
 * Rendering a UI resource (SEP-1865 "UI Resource Format", "Security Implications"): the HTML of
 * a `resources/read` content item in a sandboxed iframe, under the Content Security Policy its
 * `_meta.ui.csp` declares, with the `allow` permissions its `_meta.ui.permissions` asks for.
 *
 * - `sandbox="allow-scripts"` (plus what `sandbox` adds): no `allow-same-origin`, so the view
 *   runs in an opaque origin and reaches nothing of the host's but its `postMessage` channel;
 * - the CSP is a `<meta http-equiv="Content-Security-Policy">` put before anything else of the
 *   document (after a leading doctype), so it governs every script and load of the view; a
 *   policy the document states itself can only restrict further. Without `csp` the restrictive
 *   default of the spec applies; with it, only the declared origins are added ({@link appCsp}).
 * - the transport listens before the frame loads, accepts messages from the frame's window and
 *   the origin `null` only ({@link PostMessageTransport}).
 */
import { PostMessageTransport, type MessageSource } from './postmessage.js';

/** `_meta.ui.csp` of a UI resource. */
export interface AppCspDomains {
  connectDomains?: readonly string[];
  resourceDomains?: readonly string[];
  frameDomains?: readonly string[];
  baseUriDomains?: readonly string[];
}
/** `_meta.ui.permissions` of a UI resource. */
export interface AppPermissions {
  camera?: object;
  microphone?: object;
  geolocation?: object;
  clipboardWrite?: object;
}

/** An origin as a CSP source: `https://a.example`, `https://*.a.example`, `wss://b.example:8443`; anything else is dropped. */
const SOURCE = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;
const sources = (list: readonly string[] | undefined): string[] =>
  (list ?? []).filter((s) => typeof s === 'string' && SOURCE.test(s));

/**
 * The CSP of a view (SEP-1865 "Content Security Policy Enforcement"): `default-src 'none'`,
 * scripts and styles from the document itself and the declared `resourceDomains`, images and
 * media also from `data:`, network to `connectDomains` only (`'none'` without), frames from
 * `frameDomains` only, `object-src 'none'`, `base-uri` the declared ones else `'self'`. Declared
 * entries that are not plain origins (a quote, a `;`, a path, a scheme other than http(s) or
 * ws(s)) are left out: a policy can only be widened by origins.
 */
export function appCsp(csp: AppCspDomains | undefined): string {
  const res = sources(csp?.resourceDomains);
  const connect = sources(csp?.connectDomains);
  const frames = sources(csp?.frameDomains);
  const base = sources(csp?.baseUriDomains);
  const join = (...xs: string[]) => xs.filter(Boolean).join(' ');
  return [
    "default-src 'none'",
    `script-src ${join("'self'", "'unsafe-inline'", ...res)}`,
    `style-src ${join("'self'", "'unsafe-inline'", ...res)}`,
    `img-src ${join("'self'", 'data:', ...res)}`,
    `font-src ${join("'self'", ...res)}`,
    `media-src ${join("'self'", 'data:', ...res)}`,
    `connect-src ${connect.length ? join(...connect) : "'none'"}`,
    `frame-src ${frames.length ? join(...frames) : "'none'"}`,
    "object-src 'none'",
    `base-uri ${base.length ? join(...base) : "'self'"}`,
  ].join('; ');
}

/** The iframe `allow` attribute of `permissions` (camera, microphone, geolocation, clipboard-write). */
export function appAllow(permissions: AppPermissions | undefined): string {
  const out: string[] = [];
  if (permissions?.camera) out.push('camera');
  if (permissions?.microphone) out.push('microphone');
  if (permissions?.geolocation) out.push('geolocation');
  if (permissions?.clipboardWrite) out.push('clipboard-write');
  return out.join('; ');
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `html` with a CSP `<meta>` first (after a leading doctype): see the module comment. */
export function withCsp(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${escapeAttr(policy)}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}

/** A UI resource's content as `resources/read` returns it. */
export interface AppResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: {
    ui?: { csp?: AppCspDomains; permissions?: AppPermissions; prefersBorder?: boolean };
    [key: string]: unknown;
  };
}

/** The HTML of a UI resource content item (`text`, or `blob` as base64 UTF-8). @throws TypeError when it has neither. */
export function appHtml(content: AppResourceContent): string {
  if (typeof content.text === 'string') return content.text;
  if (typeof content.blob === 'string') {
    const bin = atob(content.blob);
    return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  }
  throw new TypeError(`UI resource ${content.uri} has neither text nor blob`);
}

interface FrameDocument {
  createElement(tag: 'iframe'): FrameElement;
  defaultView: (MessageSource & object) | null;
}
/** What {@link mountAppFrame} needs of the `<iframe>` it makes (an `HTMLIFrameElement` in a browser). */
export interface FrameElement {
  setAttribute(name: string, value: string): void;
  srcdoc: string;
  contentWindow: unknown;
  remove(): void;
}

/** Options of {@link mountAppFrame}. */
export interface MountOptions {
  /** Where the iframe goes (its `appendChild`). */
  container: { appendChild(node: unknown): unknown; ownerDocument?: unknown };
  /** The UI resource content (`resources/read` of the tool's `_meta.ui.resourceUri`). */
  content: AppResourceContent;
  /** Extra sandbox tokens (never `allow-same-origin`: refused). */
  sandbox?: readonly string[];
  /** The document the frame is made in (default the container's, else `globalThis.document`). */
  document?: unknown;
  /** Told of each refused message event (see PostMessageTransport). */
  onRefused?: (reason: string) => void;
}

/** A mounted view: its iframe, the transport to it, the policy it runs under. */
export interface MountedFrame {
  iframe: FrameElement;
  transport: PostMessageTransport;
  csp: string;
  /** Removes the iframe (after `AppHost.teardownResource`). */
  remove(): void;
}

/**
 * Renders `content` in a new sandboxed iframe in `container` (see the module comment) and makes
 * the transport to it, listening before the frame loads. @throws TypeError for a resource that
 * is not `text/html;profile=mcp-app` or has no HTML, or a sandbox token `allow-same-origin`.
 */
export function mountAppFrame(options: MountOptions): MountedFrame {
  const { content } = options;
  if (content.mimeType !== undefined && !/^text\/html(;|$)/.test(content.mimeType))
    throw new TypeError(`UI resource ${content.uri} is ${content.mimeType}, not text/html;profile=mcp-app`);
  if (options.sandbox?.includes('allow-same-origin'))
    throw new TypeError('a view frame never gets allow-same-origin: it would share the host origin');
  const doc = (options.document ??
    (options.container as { ownerDocument?: unknown }).ownerDocument ??
    (globalThis as { document?: unknown }).document) as FrameDocument;
  const csp = appCsp(content._meta?.ui?.csp);
  const iframe = doc.createElement('iframe');
  iframe.setAttribute('sandbox', ['allow-scripts', ...(options.sandbox ?? [])].join(' '));
  const allow = appAllow(content._meta?.ui?.permissions);
  if (allow) iframe.setAttribute('allow', allow);
  iframe.setAttribute('title', content.uri);
  iframe.srcdoc = withCsp(appHtml(content), csp);
  options.container.appendChild(iframe);
  const transport = new PostMessageTransport({
    target: iframe.contentWindow as never,
    origin: 'null',
    listenOn: (doc.defaultView ?? globalThis) as MessageSource,
    onRefused: options.onRefused,
  });
  return {
    iframe,
    transport,
    csp,
    remove: () => {
      void transport.close();
      iframe.remove();
    },
  };
}
