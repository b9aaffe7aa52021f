/**
 * The order in which the finished streams of every session of a `MemoryEventStore` finished
 * (./events-memory.ts), for its TTL and its byte budget.
 */
import type { SessionEvents } from './events-streams.js';

/**
 * The finished streams of every session in the order they finished: a ring of (session, the
 * record's serial, when it finished). An entry whose record went otherwise (maxStreams, the
 * session's budget, clear) is dropped when it comes first, or when the ring is full and rebuilt;
 * one whose stream was stored to again is emptied at once ({@link FinishOrder.forget}).
 */
export class FinishOrder {
  private sessions: Array<SessionEvents | undefined> = new Array<SessionEvents | undefined>(64).fill(undefined);
  private serials = new Float64Array(64);
  private at = new Float64Array(64);
  private head = 0;
  /** Entries in the ring. */
  count = 0;

  /** When the stream of the first entry finished (the ring is not empty). */
  firstAt(): number {
    return this.at[this.head];
  }

  /** Whether the entry at `i` of the ring still names a kept record. */
  private kept(i: number): boolean {
    const finished = this.sessions[i]?.finished;
    return finished !== undefined && this.serials[i] >= finished.firstSerial;
  }

  /** Drops the entry of the record numbered `serial` from the ring (a binary search: the ring is in serial order). */
  forget(serial: number): void {
    const capacity = this.sessions.length;
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const i = (this.head + middle) % capacity;
      const found = this.serials[i];
      if (found === serial) {
        this.sessions[i] = undefined;
        return;
      }
      if (found < serial) low = middle + 1;
      else high = middle - 1;
    }
  }

  /** Adds the entry of record `serial` of `session`, its stream finished at `at` (ms since the store was made). */
  push(session: SessionEvents, serial: number, at: number): void {
    if (this.count === this.sessions.length) this.rebuild();
    const i = (this.head + this.count) % this.sessions.length;
    this.sessions[i] = session;
    this.serials[i] = serial;
    this.at[i] = at;
    this.count++;
  }

  /**
   * The ring is full: its entries that name kept records, in order, in a ring at least twice
   * their number. That is the same ring, compacted in place (the kept entries move up behind the
   * head: an entry is only ever written where an earlier one was read), unless it must grow or
   * is four times too large: a new ring of thousands of entries for each rebuild was garbage of
   * the old generation.
   */
  private rebuild(): void {
    const capacity = this.sessions.length;
    const head = this.head;
    let kept = 0;
    for (let n = 0; n < this.count; n++) if (this.kept((head + n) % capacity)) kept++;
    let size = 64;
    while (size < 2 * kept + 2) size *= 2;
    const same = size <= capacity && 4 * size > capacity;
    const sessions = same ? this.sessions : new Array<SessionEvents | undefined>(size).fill(undefined);
    const serials = same ? this.serials : new Float64Array(size);
    const at = same ? this.at : new Float64Array(size);
    const start = same ? head : 0;
    let w = 0;
    for (let n = 0; n < this.count; n++) {
      const i = (head + n) % capacity;
      if (!this.kept(i)) continue;
      const j = (start + w++) % sessions.length;
      sessions[j] = this.sessions[i];
      serials[j] = this.serials[i];
      at[j] = this.at[i];
    }
    if (same) for (let n = w; n < this.count; n++) sessions[(head + n) % capacity] = undefined;
    this.sessions = sessions;
    this.serials = serials;
    this.at = at;
    this.head = start;
    this.count = w;
  }

  /**
   * Takes the first entry off the ring (it is not empty): its session when the entry names that
   * session's oldest record, which the store then releases (a kept record always is its
   * session's oldest when its entry comes first: records and entries are both in the order
   * streams finished); undefined when it named nothing kept.
   */
  shift(): SessionEvents | undefined {
    const i = this.head;
    const session = this.sessions[i];
    const serial = this.serials[i];
    this.sessions[i] = undefined;
    this.head = (i + 1) % this.sessions.length;
    this.count--;
    return session !== undefined && session.finished?.firstSerial === serial ? session : undefined;
  }
}
