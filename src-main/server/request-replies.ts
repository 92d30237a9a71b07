import { createHash } from 'node:crypto';
import { WorkbenchError } from '../contract/errors';
import type { RequestMessage } from '../contract/transport';

/**
 * How much of its recent replies the server keeps per client session: enough for every
 * request a page has in flight or just answered, small enough that a client sending many
 * large requests costs bounded memory.
 */
export const replyLimits = {
  /** Requests remembered per session; the oldest answered ones are forgotten first. */
  requests: 256,
  /** Characters of reply text kept per session; an older reply's text is dropped past it (its id is still remembered). */
  replyChars: 16 * 1024 * 1024,
  /** Sessions remembered; the one least recently used is forgotten first. */
  sessions: 64,
} as const;

/** A reply as sent: its JSON text. */
export type ReplyText = string;

interface Entry {
  /** sha-256 of the method and parameters, so the same id reused for another request is refused. */
  fingerprint: string;
  method: string;
  /** Pending while the request runs; the text once answered, or null when it was dropped to stay in budget. */
  reply: Promise<ReplyText>;
  text: ReplyText | null;
  answered: boolean;
}

function fingerprintOf(request: RequestMessage): string {
  let params: string;
  try {
    params = JSON.stringify(request.params) ?? 'undefined';
  } catch {
    params = String(request.params);
  }
  return createHash('sha256').update(request.method).update('\0').update(params).digest('hex');
}

/**
 * The requests of one client session, each answered at most once. A request whose reply was
 * lost (the socket dropped) may arrive again with the same id: it then gets the reply the
 * first one got, or waits for it while it still runs, and never runs again, so a
 * `notebooks/create` repeated makes one notebook.
 */
export class SessionReplies {
  private readonly entries = new Map<number, Entry>();
  private keptChars = 0;

  /**
   * The reply to `request`: from `run` the first time its id is seen, from memory after that.
   * `refusal` turns a WorkbenchError into the reply text for a repeat that cannot be answered.
   */
  answer(request: RequestMessage, run: () => Promise<ReplyText>, refusal: (error: WorkbenchError) => ReplyText): Promise<ReplyText> {
    const fingerprint = fingerprintOf(request);
    const known = this.entries.get(request.id);
    if (known) {
      if (known.fingerprint !== fingerprint) {
        return Promise.resolve(refusal(new WorkbenchError('conflict', `Request id ${request.id} was used already, for ${known.method === request.method ? 'the same request with other parameters' : known.method}: give each request its own id`)));
      }
      if (!known.answered) return known.reply;
      if (known.text !== null) return Promise.resolve(known.text);
      return Promise.resolve(refusal(new WorkbenchError('conflict', `Request ${request.id} (${request.method}) was carried out and answered already; its reply is no longer kept: look at the result before asking again with a new id`)));
    }
    const entry: Entry = { fingerprint, method: request.method, reply: Promise.resolve(''), text: null, answered: false };
    // `run` answers failures itself; anything it still throws becomes this request's error reply.
    entry.reply = run().catch((error: unknown) => refusal(WorkbenchError.from(error))).then((text) => {
      entry.answered = true;
      entry.text = text;
      this.keptChars += text.length;
      this.trim();
      return text;
    });
    this.entries.set(request.id, entry);
    this.trim();
    return entry.reply;
  }

  /** Forgets the oldest answered requests past the count, and drops the oldest reply texts past the size. */
  private trim(): void {
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= replyLimits.requests) break;
      if (!entry.answered) continue;
      this.keptChars -= entry.text?.length ?? 0;
      this.entries.delete(id);
    }
    for (const entry of this.entries.values()) {
      if (this.keptChars <= replyLimits.replyChars) break;
      if (entry.text === null) continue;
      this.keptChars -= entry.text.length;
      entry.text = null;
    }
  }
}

/** Sessions by the id their page chose, least recently used first out. */
export class ReplyLedger {
  private readonly sessions = new Map<string, SessionReplies>();

  session(id: string): SessionReplies {
    let replies = this.sessions.get(id);
    if (replies) this.sessions.delete(id);
    else replies = new SessionReplies();
    this.sessions.set(id, replies);
    for (const oldest of this.sessions.keys()) {
      if (this.sessions.size <= replyLimits.sessions) break;
      this.sessions.delete(oldest);
    }
    return replies;
  }
}

/** What a page may call its session: a random id of 16 to 64 URL-safe characters. */
export const sessionIdPattern = /^[A-Za-z0-9_-]{16,64}$/;
