/**
 * Raw HTTP/1.1 over a `node:net` socket, for the refusal tests: the request head goes out on its
 * own, the body only when and as far as a test says, and the response is parsed by hand, so a
 * test sees exactly what the server answered before (or without) a body byte.
 */
import { connect, type Socket } from 'node:net';

/** A parsed response, and what the client had sent of the body when it arrived. */
export interface RawResponse {
  status: number;
  /** Header values by lower-case name. */
  headers: Record<string, string>;
  body: string;
  /** Body bytes the client had written when the whole response was in. */
  sentBytes: number;
  /** A `100 Continue` came before the response. */
  continued: boolean;
}

/** Waits for one whole response (by its Content-Length) on `socket`; rejects on error or close before it. */
function readResponse(
  socket: Socket,
  sent: () => number,
  timeoutMs: number,
  onContinue: () => void,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let continued = false;
    const timer = setTimeout(
      () => done(new Error(`no response within ${timeoutMs} ms (${sent()} body bytes sent)`)),
      timeoutMs,
    );
    const done = (e: Error | undefined, r?: RawResponse): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
      if (e) reject(e);
      else resolve(r!);
    };
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(lines[0].split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      if (status === 100) {
        continued = true;
        buf = buf.subarray(end + 4);
        onContinue();
        return onData(Buffer.alloc(0));
      }
      const length = Number(headers['content-length'] ?? NaN);
      if (!Number.isFinite(length)) return done(new Error(`response without Content-Length: ${lines[0]}`));
      if (buf.byteLength - end - 4 < length) return;
      done(undefined, {
        status,
        headers,
        body: buf.subarray(end + 4, end + 4 + length).toString('utf8'),
        sentBytes: sent(),
        continued,
      });
    };
    const onError = (e: Error): void => done(new Error(`${e.message} before the response (${sent()} body bytes sent)`));
    const onClose = (): void => done(new Error(`connection closed before the response (${sent()} body bytes sent)`));
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
  });
}

export interface RawRequest {
  method?: string;
  path: string;
  headers: Record<string, string>;
  /**
   * What to send after the head: `'none'` (wait for the response without a body byte),
   * `{ push }` (that many bytes of `x`, as fast as the socket takes them, stopping once the
   * response is in), `{ trickle }` (that many bytes at once, then nothing more), `{ onContinue }`
   * (that text once a `100 Continue` arrived).
   */
  body: 'none' | { push: number; chunked?: boolean } | { trickle: string } | { onContinue: string };
  timeoutMs?: number;
}

/** Sends one request over a new connection and resolves with the response; the socket is destroyed after. */
export async function rawRequest(port: number, r: RawRequest): Promise<RawResponse> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setNoDelay(true);
  let sent = 0;
  let answered = false;
  const response = readResponse(
    socket,
    () => sent,
    r.timeoutMs ?? 20_000,
    () => {
      if (typeof r.body === 'object' && 'onContinue' in r.body) {
        socket.write(r.body.onContinue);
        sent += Buffer.byteLength(r.body.onContinue);
      }
    },
  );
  response.then(
    () => (answered = true),
    () => (answered = true),
  );
  const head = [
    `${r.method ?? 'POST'} ${r.path} HTTP/1.1`,
    ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  socket.write(head);
  if (typeof r.body === 'object' && 'trickle' in r.body) {
    socket.write(r.body.trickle);
    sent = Buffer.byteLength(r.body.trickle);
  } else if (typeof r.body === 'object' && 'push' in r.body) {
    const { push, chunked } = r.body;
    const piece = Buffer.alloc(64 * 1024, 0x78);
    const frame = chunked
      ? Buffer.concat([Buffer.from(`${piece.byteLength.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
      : piece;
    void (async () => {
      while (!answered && sent < push && !socket.destroyed) {
        const more = socket.write(frame);
        sent += piece.byteLength;
        if (!more)
          await new Promise<void>((resolve) => {
            const go = (): void => {
              socket.off('drain', go);
              socket.off('close', go);
              resolve();
            };
            socket.on('drain', go);
            socket.on('close', go);
          });
      }
    })().catch(() => undefined);
  }
  try {
    return await response;
  } finally {
    socket.destroy();
  }
}

/** The JSON-RPC error of a refusal body (`{ jsonrpc, error }`, no `id`: none was read), checked for shape. */
export function refusalError(res: RawResponse): { code: number; message: string } {
  const body = JSON.parse(res.body) as { jsonrpc?: unknown; id?: unknown; error?: { code: number; message: string } };
  if (body.jsonrpc !== '2.0' || 'id' in body || typeof body.error?.code !== 'number')
    throw new Error(`not a JSON-RPC refusal: ${res.body}`);
  return body.error;
}

/**
 * Writes `raw` (one request or several, pipelined) on a new connection to `port` and resolves
 * with all the server sent until it closed the connection; with `dropAfterMs`, the client
 * closes it then instead (else, still open after 5 s, it rejects).
 */
export function rawExchange(port: number, raw: string, dropAfterMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(
      () =>
        dropAfterMs === undefined
          ? reject(new Error(`connection still open; got ${JSON.stringify(got)}`))
          : socket.destroy(),
      dropAfterMs ?? 5000,
    );
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (got += d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.write(raw);
  });
}
