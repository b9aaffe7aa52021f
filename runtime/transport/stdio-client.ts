/** The client side of stdio (./stdio.ts): spawns the server, speaks to it, shuts it down. */
import { spawn, type ChildProcess } from 'node:child_process';
import { ConnectionClosedError } from '../jsonrpc/errors.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../jsonrpc/transport.js';
import { DEFAULT_CLIENT_MAX_INVALID_LINES, LineChannel, type StdioCommonOptions } from './stdio-channel.js';

/** How the child's stderr is handled. */
export type StderrMode = 'inherit' | 'pipe' | 'ignore';

export interface StdioClientOptions extends StdioCommonOptions {
  /** The server executable. */
  command: string;
  args?: readonly string[];
  /** Variables for the child, merged over `process.env` unless `inheritEnv` is false. */
  env?: Record<string, string | undefined>;
  /** Start from `process.env` (default true). */
  inheritEnv?: boolean;
  cwd?: string;
  /** stderr: `'inherit'` (default), `'ignore'`, or `'pipe'` with {@link onStderr}. */
  stderr?: StderrMode;
  /** With `stderr: 'pipe'`: each chunk the server writes to stderr (drained even without it). */
  onStderr?: (chunk: Buffer) => void;
  /** ms to wait for the server to exit after its stdin is closed, before SIGTERM (default 2000). */
  closeStdinTimeoutMs?: number;
  /** ms to wait after SIGTERM before SIGKILL (default 2000). */
  sigtermTimeoutMs?: number;
}

/**
 * Client side: spawns the server and speaks to it over its stdin/stdout. `start` resolves once
 * the process runs and rejects if it cannot be spawned (e.g. ENOENT). `onClose` fires once,
 * after the process has exited and its pipes closed: with no error after `close()` or a clean
 * exit, with the truncated-frame error, or with an error naming the exit code or signal; or at
 * once with NotJsonRpcError / WriteQueueFullError, while the server is shut down (SIGTERM, then
 * SIGKILL) in the background (`close()` waits for that). On `close()`, a server that has sent
 * only lines that are not JSON-RPC gets SIGTERM without waiting for it to exit on stdin close.
 */
export class StdioClientTransport implements Transport {
  /** Responses go out on the one output whatever their {@link SendOptions}: the engine gives them none. */
  readonly routesResponses = false;
  private child: ChildProcess | undefined;
  private channel: LineChannel | undefined;
  private events: TransportEvents | undefined;
  private closing = false;
  private shutdown: Promise<void> | undefined;
  private exited: Promise<void> | undefined;
  private closed: Promise<void> | undefined;
  private fired = false;

  constructor(private readonly options: StdioClientOptions) {}

  /** The child's pid once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child process (for tests and diagnostics). */
  get process(): ChildProcess | undefined {
    return this.child;
  }

  start(events: TransportEvents): Promise<void> {
    if (this.child) return Promise.reject(new Error('transport already started'));
    const o = this.options;
    this.events = events;
    const env = o.inheritEnv === false ? { ...o.env } : { ...process.env, ...o.env };
    const stderr = o.stderr ?? 'inherit';
    const child = spawn(o.command, o.args ?? [], {
      env,
      cwd: o.cwd,
      stdio: ['pipe', 'pipe', stderr],
      windowsHide: true,
    });
    this.child = child;
    if (stderr === 'pipe') child.stderr!.on('data', (c: Buffer) => o.onStderr?.(c));
    this.exited = new Promise((r) => child.once('exit', () => r()));
    this.closed = new Promise((r) =>
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        const done = () => {
          this.finish(code, signal);
          r();
        };
        // the lines the server wrote before it exited are delivered first (an over-long line's
        // answer and the lines queued behind it)
        const pending = this.channel?.settled();
        if (pending) void pending.then(done);
        else done();
      }),
    );
    const channel = new LineChannel(
      child.stdout!,
      child.stdin!,
      o.answerParseErrors ?? false,
      { ...o, maxInvalidLines: o.maxInvalidLines ?? DEFAULT_CLIENT_MAX_INVALID_LINES },
      'server',
      (e) => this.failNow(e),
    );
    this.channel = channel;
    return new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        channel.attach(events, () => {
          if (!this.closing) void this.terminate();
        });
        child.on('error', (e) => channel.report(e));
        resolve();
      });
      child.once('error', (e) => {
        if (child.pid === undefined) {
          this.fired = true;
          reject(e);
        }
      });
    });
  }

  /** One line holding the JSON array of a batch's responses. */
  sendBatch(messages: JSONRPCMessage[]): Promise<void> {
    if (!this.channel || this.closing || this.fired) return Promise.reject(new ConnectionClosedError());
    return this.channel.write(messages);
  }

  send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    if (!this.channel || this.closing || this.fired) return Promise.reject(new ConnectionClosedError());
    return this.channel.write(message);
  }

  /** Shuts the server down (stdin close, SIGTERM, SIGKILL) and resolves once it has exited. */
  async close(): Promise<void> {
    if (!this.child || this.child.pid === undefined) return;
    this.closing = true;
    await this.terminate();
  }

  /**
   * The connection failed (the server's output is not JSON-RPC, or it does not read its input):
   * `onClose(error)` fires now, so pending requests fail at once, and the server is shut down
   * with SIGTERM without the stdin grace period.
   */
  private failNow(error: Error): void {
    if (this.fired) return;
    this.fired = true;
    this.events?.onClose(error);
    void this.terminate().catch(() => undefined);
  }

  private terminate(): Promise<void> {
    return (this.shutdown ??= this.runShutdown());
  }

  private async runShutdown(): Promise<void> {
    const child = this.child!;
    const o = this.options;
    if (child.exitCode === null && child.signalCode === null) {
      this.channel?.flush();
      child.stdin?.end();
      // A server that failed the connection, or sent nothing but lines that are not JSON-RPC, is
      // not speaking the protocol: it gets no grace period for a clean exit on stdin close.
      const speaking = !this.channel?.failure && !this.channel?.garbageOnly;
      if (!speaking || !(await within(this.exited!, o.closeStdinTimeoutMs ?? 2000))) {
        child.kill('SIGTERM');
        if (!(await within(this.exited!, o.sigtermTimeoutMs ?? 2000))) {
          child.kill('SIGKILL');
          await this.exited;
        }
      }
    }
    // A grandchild may hold the pipes open after the server exits: do not wait on it forever.
    if (!(await within(this.closed!, 1000))) {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      await this.closed;
    }
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.fired) return;
    this.fired = true;
    this.channel?.detach();
    let error: Error | undefined = this.channel?.endError;
    if (!error && !this.closing && (code !== 0 || signal !== null)) {
      error = new Error(signal ? `server process killed by ${signal}` : `server process exited with code ${code}`);
    }
    this.events?.onClose(error);
  }
}

function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
