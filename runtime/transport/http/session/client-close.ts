/**
 * Ending the session of a Streamable HTTP client transport (./fetch-client.ts; 2025-11-25
 * basic/transports, "Session Management": DELETE), and closing the transport: while the
 * standalone GET stream is open, the session is ended first and that stream read to its end.
 */
import { HttpStatusError, lostBefore, sleep } from '../io/request.js';
import { neverSent } from '../io/delivery.js';
import { RequestNotProcessedError } from '../../../jsonrpc/errors.js';
import { signalOf, stopStream } from './client-state.js';
import { ClientPost } from './client-post.js';

/** How long close() reads the standalone stream after ending the session, at most, ms. */
const CLOSE_READ_MS = 2000;

/** The whole of a client transport, which its public face (./fetch-client.ts) calls. */
export class ClientCore extends ClientPost {
  closeRun: Promise<void> | undefined;

  /** Ends the session on the server; see `HttpClientTransport.terminateSession`. */
  async terminateSession(): Promise<void> {
    const sid = this.session;
    if (sid === undefined) return;
    const headers = await this.headers({}, sid);
    this.dropSession(sid, true);
    const res = await this.request({ method: 'DELETE', headers, signal: AbortSignal.timeout(5000) }).catch((e) => {
      // (never the raw network error: a refusal at connect says nothing was sent, else it may have run)
      throw neverSent(e)
        ? new RequestNotProcessedError({ reason: 'not-sent', what: 'DELETE', attempts: 1, cause: e })
        : lostBefore(e, 'DELETE');
    });
    res.discard();
    if (!res.ok && res.status !== 405 && res.status !== 404) throw new HttpStatusError(res.status, undefined, 'DELETE');
  }

  /**
   * close()'s DELETE while the standalone stream stays open (the other streams of the session
   * stopped): whether the server ended the session (2xx).
   */
  async endSession(sid: string): Promise<boolean> {
    try {
      const headers = await this.headers({}, sid);
      for (const s of this.streams.list()) {
        if (s === this.standalone || s.sessionId !== sid) continue;
        stopStream(s);
      }
      const res = await this.request({ method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
      res.discard();
      this.session = undefined;
      this.version = undefined;
      return res.ok;
    } catch {
      return false;
    }
  }

  /** Closes the transport once; see `HttpClientTransport.close`. */
  close(): Promise<void> {
    return (this.closeRun ??= this.closeOnce());
  }

  /** The one run of {@link close} (nothing else sets `closed`). */
  async closeOnce(): Promise<void> {
    const standalone = this.standalone;
    const sid = this.session;
    if (standalone?.reading && sid !== undefined) {
      const ended = new Promise<void>((r) => (this.closing = r));
      const ok = await this.endSession(sid);
      if (ok) await Promise.race([ended, sleep(CLOSE_READ_MS, signalOf(standalone))]);
      stopStream(standalone);
    }
    this.closing = undefined;
    this.closed = true;
    for (const s of this.streams.list()) stopStream(s);
    this.streams.clear();
    if (this.session !== undefined) await this.terminateSession().catch(() => undefined);
    for (const c of [...this.inFlight]) c.cancel();
    this.inFlight.clear();
    this.events?.onClose();
  }
}
