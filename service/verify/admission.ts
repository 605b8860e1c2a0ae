/** Verify work (ms) one event-loop turn may start by default (VERIFY_TURN_BUDGET_MS); chosen by `npm run bench:overload`. */
export const DEFAULT_TURN_BUDGET_MS = 10;
/** How long verify work may wait by default while new connections are accepted (VERIFY_ACCEPT_FIRST_MS). */
export const DEFAULT_ACCEPT_FIRST_MS = 50;

/** One admitted request: counted against the limit until answered, or until its body stalls. */
export interface Ticket {
  readonly at: number;
  bodyDone: boolean;
  counted: boolean;
  /** When its body was parsed (performance.now()), -1 before and once workDone() counted it. */
  workStart: number;
}

export interface AdmissionOptions {
  /** Verify requests worked on at once; the next ones wait, without their body being read. */
  readonly maxInFlight: number;
  /** Longest wait for a slot; past it the request is shed (503). */
  readonly maxWaitMs: number;
  /** Most requests waiting at once; past it a request is shed at once. */
  readonly maxWaiting: number;
  /** A request whose body has not arrived after this long stops counting: a stalled client uses no CPU. */
  readonly stallMs: number;
  /**
   * Verify work (ms) one event-loop turn may do before the requests read in it wait for the next turn. A burst of
   * complete requests is read in one turn, and each would be classified in it, so the last (and /healthz, and every
   * timer) waited behind all of them; a slot limit alone never sees them, as each finishes before the next is read.
   */
  readonly turnBudgetMs: number;
  /**
   * After a turn that accepted a connection, verify work waits for the next turn, for at most this long since the last
   * work (0: never): libuv accepts one connection per event-loop turn, so a burst of connections (a load balancer's
   * probe behind them) is let in at the pace of turns, and a turn with a 63 KB classification in it is a slow pace.
   */
  readonly acceptFirstMs?: number;
  readonly now?: () => number;
}

interface Waiter {
  readonly admit: (ticket: Ticket) => void;
  readonly shed: () => void;
  /** performance.now() past which it is shed. */
  readonly deadline: number;
}

const LEAK_MS = 300_000;

/**
 * A concurrency limit with a bounded, timed queue for verify requests, decided in onRequest. A request past the
 * limit waits there without its body being read (Node stops reading its socket, so its client waits too instead of
 * sending more), is let in when a slot frees, and is shed with a 503 if none frees within `maxWaitMs`. So every
 * request is answered within about maxWaitMs plus the time to work through the limit, the event loop only ever has
 * `maxInFlight` classifications to do (/healthz stays quick), and a 503 costs a client maxWaitMs rather than being
 * an instant invitation to send the next 63 KB. Slow clients would otherwise hold the slots while using no CPU, so a
 * request still waiting for its body after `stallMs` is no longer counted (the request timeout ends it).
 */
export class Admission {
  readonly #o: AdmissionOptions;
  readonly #tickets = new Set<Ticket>();
  readonly #waiting: Waiter[] = [];
  #counted = 0;
  #sweeper: NodeJS.Timeout | undefined;
  /**
   * One timer for every waiter's deadline, armed for the oldest: they wait in arrival order with the same
   * maxWaitMs, so the oldest expires first. A timer per waiter cost a Timeout made and cleared per queued request,
   * and under a steady load of more connections than slots most requests queue for a moment.
   */
  #expiry: NodeJS.Timeout | undefined;
  /** Work done since the last turn boundary (a pump, or the tick timer below). */
  #spent = 0;
  /** Recent work per request (ms, moving average): what a request let in from the queue is expected to cost. */
  #perRequest = 1;
  #acceptedThisTurn = false;
  /** When the pump last let requests in (performance.now()). */
  #lastWork = 0;
  /** This turn's budget: the configured one, more after turns given to accepting (so work keeps a share of the time). */
  #budget: number;
  #pumping: NodeJS.Immediate | undefined;
  readonly #tick: NodeJS.Timeout;

  constructor(options: AdmissionOptions) {
    this.#o = options;
    this.#budget = options.turnBudgetMs;
    // Turns without a pump (no one waiting) start afresh too: the budget is per turn, not a running total.
    this.#tick = setInterval(() => {
      this.#spent = 0;
      this.#budget = this.#o.turnBudgetMs;
    }, 10);
    this.#tick.unref();
  }

  /** A connection was accepted in this turn. */
  connectionAccepted(): void {
    this.#acceptedThisTurn = true;
  }

  /** Counts one request's `ms` of verify work, done in the current turn. */
  spend(ms: number): void {
    this.#spent += ms;
    this.#perRequest += (ms - this.#perRequest) / 16;
  }

  get inFlight(): number {
    return this.#counted;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** A ticket now if a slot is free and nothing waits (the common case: no callback to make), else undefined. */
  tryEnter(): Ticket | undefined {
    if (this.#counted < this.#o.maxInFlight && this.#waiting.length === 0 && this.#spent < this.#budget) return this.#ticket();
    return undefined;
  }

  /** Calls `admit` now or once a slot frees, or `shed` if none frees in time (or too many are waiting). */
  enter(admit: (ticket: Ticket) => void, shed: () => void): void {
    const ticket = this.tryEnter();
    if (ticket !== undefined) {
      admit(ticket);
      return;
    }
    if (this.#waiting.length >= this.#o.maxWaiting) {
      shed();
      return;
    }
    this.#waiting.push({ admit, shed, deadline: performance.now() + this.#o.maxWaitMs });
    if (this.#expiry === undefined) this.#expireAfter(this.#o.maxWaitMs);
    this.#pumpSoon();
    this.#sweepSoon();
  }

  /** Sheds the waiters whose deadline has passed, oldest first, then waits for the next one's. */
  #expireAfter(ms: number): void {
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      const now = performance.now();
      while (this.#waiting.length > 0 && (this.#waiting[0] as Waiter).deadline <= now) (this.#waiting.shift() as Waiter).shed();
      const next = this.#waiting[0];
      if (next !== undefined) this.#expireAfter(Math.max(1, next.deadline - now));
    }, ms);
  }

  /** Counts the work of `ticket`'s request since its body arrived, once (a later call adds nothing). */
  workDone(ticket: Ticket): void {
    if (ticket.workStart < 0) return;
    this.spend(performance.now() - ticket.workStart);
    ticket.workStart = -1;
  }

  /** The body has arrived: from here the request uses CPU until answered, so it counts whatever its age. */
  bodyDone(ticket: Ticket): void {
    ticket.bodyDone = true;
    if (!ticket.counted) {
      // A stalled request resumed: counted again (possibly past the limit, once; it was admitted already).
      ticket.counted = true;
      this.#counted++;
    }
  }

  leave(ticket: Ticket): void {
    if (!this.#tickets.delete(ticket)) return;
    if (ticket.counted) this.#counted--;
    this.#admitWaiting();
  }

  close(): void {
    clearTimeout(this.#sweeper);
    clearTimeout(this.#expiry);
    clearInterval(this.#tick);
    if (this.#pumping !== undefined) clearImmediate(this.#pumping);
    this.#waiting.length = 0;
  }

  #ticket(): Ticket {
    const ticket: Ticket = { at: (this.#o.now ?? Date.now)(), bodyDone: false, counted: true, workStart: -1 };
    this.#tickets.add(ticket);
    this.#counted++;
    return ticket;
  }

  /**
   * Lets waiting requests in while slots and this turn's budget allow. Their work runs after this call returns, so
   * the budget counts each at the recent cost per request; `atLeastOne` (a turn boundary) guarantees progress.
   */
  #admitWaiting(atLeastOne = false): void {
    let planned = 0;
    while (
      this.#counted < this.#o.maxInFlight &&
      this.#waiting.length > 0 &&
      ((atLeastOne && planned === 0) || this.#spent + planned + this.#perRequest <= this.#budget)
    ) {
      const w = this.#waiting.shift() as Waiter;
      planned += this.#perRequest;
      w.admit(this.#ticket());
    }
    // The rest go on in the next turn, after its I/O is read: libuv accepts one connection per turn, so short turns
    // are what lets new connections (a load balancer's /healthz) in while verify is saturated.
    if (this.#waiting.length > 0 && this.#counted < this.#o.maxInFlight) this.#pumpSoon();
  }

  /** A turn boundary after this turn's I/O: setImmediate runs once the poll phase is done. */
  #pumpSoon(): void {
    if (this.#pumping !== undefined) return;
    this.#pumping = setImmediate(() => {
      this.#pumping = undefined;
      const now = performance.now();
      const sinceWork = now - this.#lastWork;
      if (this.#acceptedThisTurn && sinceWork < (this.#o.acceptFirstMs ?? 0)) {
        this.#acceptedThisTurn = false;
        this.#pumpSoon();
        return;
      }
      this.#acceptedThisTurn = false;
      this.#lastWork = now;
      this.#spent = 0;
      // After turns given to accepting, half the time they took (at most half the deferral) is added to this turn's
      // budget, so verify keeps a share of the time even while connections keep arriving.
      const deferred = Math.min(sinceWork, this.#o.acceptFirstMs ?? 0);
      this.#budget = this.#o.turnBudgetMs + (deferred > 2 * this.#o.turnBudgetMs ? deferred / 2 : 0);
      this.#admitWaiting(true);
    });
  }

  /** While requests wait, stalled bodies are looked for every stallMs / 4. */
  #sweepSoon(): void {
    if (this.#sweeper !== undefined) return;
    this.#sweeper = setTimeout(
      () => {
        this.#sweeper = undefined;
        this.sweep();
        if (this.#waiting.length > 0) this.#sweepSoon();
      },
      Math.max(10, this.#o.stallMs / 4),
    );
    this.#sweeper.unref();
  }

  /** Stops counting requests whose body stalled, and lets waiting ones into the slots that frees. */
  sweep(): void {
    const now = (this.#o.now ?? Date.now)();
    for (const t of this.#tickets) {
      // A ticket whose request ended without onResponse or onRequestAbort (should not happen) is not kept forever.
      if (now - t.at >= LEAK_MS) {
        this.#tickets.delete(t);
        if (t.counted) this.#counted--;
        continue;
      }
      if (t.counted && !t.bodyDone && now - t.at >= this.#o.stallMs) {
        t.counted = false;
        this.#counted--;
      }
    }
    this.#admitWaiting();
  }
}
