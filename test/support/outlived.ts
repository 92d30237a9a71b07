import { readFileSync } from 'node:fs';
import { until } from './until';

/**
 * What a process holds open that a `close()` should have released: libuv handles by kind
 * (`ProcessWrap` for a worker process, `TCPWrap`/`TCPSocketWrap` for sockets, `Timeout` for
 * timers, `PipeWrap` for a child's pipes) and the ids of its live child processes. Taken
 * before something is opened and compared after it is closed (issue 27: services own what they
 * open).
 */
export interface HeldResources {
  handles: Map<string, number>;
  children: Set<number>;
}

/** Counts this process's handles that can outlive a close (requests in flight such as file reads are not among them). */
export function heldResources(): HeldResources {
  const handles = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'FSReqCallback' || kind === 'FSReqPromise' || kind === 'GetAddrInfoReqWrap') continue;
    handles.set(kind, (handles.get(kind) ?? 0) + 1);
  }
  return { handles, children: childProcesses() };
}

/** The live (not zombie) children of this process, read from /proc. */
function childProcesses(): Set<number> {
  const children = new Set<number>();
  let tasks: string[];
  try {
    tasks = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return children;
  }
  for (const pid of tasks.map(Number)) {
    try {
      const state = /^State:\s+(\w)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (state !== 'Z') children.add(pid);
    } catch {
      // gone between the two reads: not held
    }
  }
  return children;
}

/** What `after` holds beyond `before`, in words; empty when nothing outlived. */
export function outlivedSince(before: HeldResources, after: HeldResources): string[] {
  const extra: string[] = [];
  for (const [kind, count] of after.handles) {
    const more = count - (before.handles.get(kind) ?? 0);
    if (more > 0) extra.push(`${more} ${kind}`);
  }
  const children = [...after.children].filter((pid) => !before.children.has(pid));
  if (children.length) extra.push(`child process ${children.join(', ')}`);
  return extra;
}

/**
 * Waits until everything held beyond `before` is released (a closed socket or killed worker is
 * let go on a later turn of the event loop), and fails naming what is still held when it is not.
 */
export async function expectNothingOutlives(before: HeldResources, what: string): Promise<void> {
  let left: string[] = [];
  try {
    await until(() => ((left = outlivedSince(before, heldResources())).length === 0 ? true : undefined), 20_000);
  } catch {
    throw new Error(`${what} left open after close(): ${left.join(', ')}`);
  }
}
