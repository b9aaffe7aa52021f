/** The server side of stdio (./stdio.ts): messages in on stdin, out on stdout. */
import type { Readable, Writable } from 'node:stream';
import { ConnectionClosedError } from '../jsonrpc/errors.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../jsonrpc/transport.js';
import { LineChannel, type StdioCommonOptions } from './stdio-channel.js';

export interface StdioServerOptions extends StdioCommonOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
}

/**
 * Server side: reads messages from stdin, writes them to stdout, nothing else. When stdin ends
 * (the client's shutdown, 2025-11-25 basic/lifecycle "Shutdown"), an engine that takes
 * `events.onEnd` aborts the signals of the requests in flight, answers them and then closes; `onClose` fires once: then,
 * when stdin ends for events without `onEnd` (with the truncated-frame error if it ended inside
 * a line), or on `close()`. `close()` stops reading and ends the output stream when it was given in the
 * options (never `process.stdout`).
 */
export class StdioServerTransport implements Transport {
  /** Responses go out on the one output whatever their {@link SendOptions}: the engine gives them none. */
  readonly routesResponses = false;
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly channel: LineChannel;
  private events: TransportEvents | undefined;
  private fired = false;

  constructor(private readonly options: StdioServerOptions = {}) {
    this.input = options.stdin ?? process.stdin;
    this.output = options.stdout ?? process.stdout;
    this.channel = new LineChannel(
      this.input,
      this.output,
      options.answerParseErrors ?? true,
      options,
      'client',
      (e) => {
        if (this.options.stdout && !this.output.writableEnded) this.output.end();
        this.finish(e);
      },
    );
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('transport already started');
    this.events = events;
    // stdin ended: the engine answers what is in flight, then closes (events.onEnd); without
    // that hook the transport closes at once
    this.channel.attach(events, () =>
      events.onEnd && !this.fired ? events.onEnd(this.channel.endError) : this.finish(this.channel.endError),
    );
    this.input.resume();
  }

  /** One line holding the JSON array of a batch's responses. */
  sendBatch(messages: JSONRPCMessage[]): Promise<void> {
    return this.channel.write(messages);
  }

  send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    if (this.fired) return Promise.reject(new ConnectionClosedError());
    return this.channel.write(message);
  }

  async close(): Promise<void> {
    this.channel.flush();
    if (this.options.stdout && !this.output.writableEnded) this.output.end();
    this.finish(undefined);
  }

  private finish(error: Error | undefined): void {
    if (this.fired) return;
    this.fired = true;
    this.channel.detach();
    this.events?.onClose(error);
  }
}
