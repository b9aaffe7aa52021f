/**
 * A `tools/call` over Streamable HTTP whose connection a test cuts in the middle of its SSE reply
 * and resumes afterwards with GET and `Last-Event-ID` (2025-11-25 basic/transports,
 * "Resumability and Redelivery"), as the Redis stall tests (44-9-*) do: POST with the session's
 * headers, read the reply up to a message, cut, then reopen the stream and read what it gives.
 * Real `fetch` against a real endpoint.
 */
import * as assert from 'uvu/assert';
import { SseParser } from '../../runtime/codec/sse.js';
import { V } from '../scale/support.js';

type Obj = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Largest SSE event the test reads, characters (the client transport's default). */
const MAX_EVENT = 1 << 24;

export class CutCall {
  /** The ID of the last event read from the reply before the cut (undefined: none carried one). */
  lastEventId: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #abort = new AbortController();
  readonly #decoder = new TextDecoder();
  #reply: ReadableStreamDefaultReader<Uint8Array> | undefined;

  private constructor(
    readonly url: string,
    sessionId: string,
  ) {
    this.#headers = {
      Accept: 'application/json, text/event-stream',
      'Content-Type': 'application/json',
      'MCP-Protocol-Version': V,
      'Mcp-Session-Id': sessionId,
    };
  }

  /** POSTs `tools/call` request `id` with `params` on session `sessionId`; asserts a 200 reply. */
  static async post(url: string, sessionId: string, id: number, params: Obj): Promise<CutCall> {
    const call = new CutCall(url, sessionId);
    const r = await fetch(url, {
      method: 'POST',
      headers: call.#headers,
      signal: call.#abort.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
    });
    assert.is(r.status, 200);
    call.#reply = (r.body as ReadableStream<Uint8Array>).getReader();
    return call;
  }

  /**
   * Reads the reply chunk by chunk, each message to `each` (and each event ID kept as
   * {@link lastEventId}), until `each` returned true for a message of a chunk or the reply ended.
   */
  async readUntil(each: (m: Obj) => boolean): Promise<void> {
    const parser = new SseParser({ maxEventSize: MAX_EVENT });
    for (let enough = false; !enough; ) {
      const { value, done } = await this.#reply!.read();
      if (done) break;
      for (const e of parser.push(this.#decoder.decode(value, { stream: true }))) {
        if (e.id) this.lastEventId = e.id;
        if (e.data && each(JSON.parse(e.data) as Obj)) enough = true;
      }
    }
  }

  /** Cuts the reply's connection. */
  cut(): void {
    this.#abort.abort();
  }

  /**
   * GETs the stream after {@link lastEventId} until the server answers 200 (100 attempts, 100 ms
   * apart; asserts it did), then hands each message of it to `each` (with its JSON text) until
   * `each` returned true for a message of a chunk. Resolves with when the resumed stream opened
   * (ms, as `Date.now()`).
   */
  async resume(each: (m: Obj, data: string) => boolean): Promise<number> {
    assert.ok(this.lastEventId, 'an event ID to resume from');
    let resumed: Response | undefined;
    for (let i = 0; i < 100 && !resumed; i++) {
      const g = await fetch(this.url, {
        method: 'GET',
        headers: { ...this.#headers, Accept: 'text/event-stream', 'Last-Event-ID': this.lastEventId },
      });
      if (g.status === 200) resumed = g;
      else {
        await g.arrayBuffer();
        await sleep(100);
      }
    }
    assert.ok(resumed, 'the stream could be resumed');
    const openedAt = Date.now();
    const parser = new SseParser({ maxEventSize: MAX_EVENT });
    for await (const chunk of resumed!.body as unknown as AsyncIterable<Uint8Array>) {
      let enough = false;
      for (const e of parser.push(this.#decoder.decode(chunk, { stream: true }))) {
        if (e.data && each(JSON.parse(e.data) as Obj, e.data)) enough = true;
      }
      if (enough) break;
    }
    return openedAt;
  }
}
