import type { RunEvent } from '../contract/run';

/** Every this many pieces of a reply, a progress line (a piece is about a token). */
const piecesPerLine = 64;
/** A call waiting this long for its next piece says so (and again every as long). */
const quietNoticeMs = 15_000;

/**
 * The CLI's view of a model reply as it forms: when a call's first piece arrives, and every
 * 64 pieces after, one line with the pieces so far, the rate and the reply's tail; while a
 * call waits 15 s or more for a piece, a line saying how long it has been quiet. Lines, not
 * a rewritten line, so logs and pipes keep them.
 */
export class ReplyProgress {
  private call: { step: number; startedAt: number; firstAt: number | null; lastAt: number; pieces: number; text: string } | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.timer = setInterval(() => this.noticeQuiet(), quietNoticeMs);
    this.timer.unref?.();
  }

  event(event: RunEvent): void {
    if (event.type === 'model-request') this.call = { step: event.step, startedAt: this.now(), firstAt: null, lastAt: this.now(), pieces: 0, text: '' };
    else if (event.type === 'model-response' || event.type === 'run-end') this.call = null;
  }

  token(text: string): void {
    const call = this.call;
    if (!call) return;
    const at = this.now();
    call.pieces += 1;
    call.lastAt = at;
    call.text = (call.text + text).slice(-120);
    if (call.firstAt === null) {
      call.firstAt = at;
      this.write(`[step ${call.step}] model: first token after ${seconds(at - call.startedAt)}: ${clip(call.text)}`);
    } else if (call.pieces % piecesPerLine === 0) {
      const rate = (call.pieces - 1) / ((at - call.firstAt) / 1000);
      this.write(`[step ${call.step}] model: ${call.pieces} tokens, ${rate.toFixed(1)} tokens/s: …${clip(call.text.slice(-60))}`);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Called every 15 s by its own timer (public so that a test can call it with a set clock). */
  noticeQuiet(): void {
    const call = this.call;
    if (!call) return;
    const quiet = this.now() - call.lastAt;
    if (quiet < quietNoticeMs) return;
    this.write(`[step ${call.step}] model: no token for ${seconds(quiet)}${call.firstAt === null ? ' (still reading the prompt)' : ` (${call.pieces} so far)`}`);
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const clip = (text: string): string => text.replace(/\s+/g, ' ').trim();
