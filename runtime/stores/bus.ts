/**
 * The notification bus of a deployment: messages for a session that must reach whichever
 * process holds the connection they belong on. The HTTP endpoint publishes on it, e.g., a
 * client's response to a server → client request (sampling, elicitation, roots) that arrived at
 * a process other than the one awaiting it, the client's `notifications/progress` on such a
 * request, a client's `notifications/cancelled`, a message for
 * the standalone stream of a session whose GET is held elsewhere, and the end of a session.
 */

/** One bus message. `from` is the publishing process's {@link NotificationBus.processId}. */
export interface BusMessage {
  /** Which kind of message (`inbound`, `standalone`, `ended`, …); subscribers filter by it. */
  topic: string;
  sessionId: string;
  from: string;
  /** JSON-serializable payload (a JSON-RPC message for `inbound` and `standalone`). */
  payload?: unknown;
}

/**
 * Publish/subscribe between the processes of a deployment, at most once, in publish order per
 * publisher. `publish` rejects when the bus cannot be reached; a subscriber that throws is
 * skipped (the others still get the message).
 */
export interface NotificationBus {
  /** This process's id on the bus (random per process). */
  readonly processId: string;
  publish(message: Omit<BusMessage, 'from'>): Promise<void>;
  /** Calls `listener` for every message published by any process (this one included); returns the unsubscribe. */
  subscribe(listener: (message: BusMessage) => void): () => void;
  close?(): Promise<void>;
}

/** The in-process {@link NotificationBus}: delivers synchronously to this process's subscribers. */
export class MemoryNotificationBus implements NotificationBus {
  readonly processId: string;
  private listeners: Array<(message: BusMessage) => void> = [];

  constructor(processId = 'local') {
    this.processId = processId;
  }

  async publish(message: Omit<BusMessage, 'from'>): Promise<void> {
    const full: BusMessage = { ...message, from: this.processId };
    // subscribe and its undo replace the list, never change it: this round's listeners stay as they are
    for (const l of this.listeners) {
      try {
        l(full);
      } catch {
        /* one failing subscriber does not stop the others */
      }
    }
  }

  subscribe(listener: (message: BusMessage) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }
}
