import { createReadStream, realpathSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** Where a request path leads: a file name relative to the renderer folder, or why not. */
export type RequestPath = { ok: true; relative: string } | { ok: false; status: 400 | 404; reason: string };

/**
 * Reads the path of a request target without ever throwing: each segment is percent-decoded on
 * its own, so a malformed escape (`%ff`, `%`, `%zz`, overlong `%c0%af`) is a 400, not an
 * exception. A segment that decodes to a separator or to `..` can only be an attempt to leave
 * the folder, so it is refused like any missing file (404); a NUL byte is a 400.
 */
export function readRequestPath(target: string | undefined): RequestPath {
  let pathname: string;
  try {
    pathname = new URL(target ?? '/', 'http://localhost').pathname;
  } catch {
    return { ok: false, status: 400, reason: 'Malformed request target' };
  }
  const segments: string[] = [];
  for (const raw of pathname.split('/').slice(1)) {
    const segment = decodeSegment(raw);
    if (segment === null) return { ok: false, status: 400, reason: 'Malformed percent-escape in the path' };
    if (segment.includes('\0')) return { ok: false, status: 400, reason: 'NUL byte in the path' };
    if (segment === '..' || segment === '.' || /[/\\]/.test(segment)) return { ok: false, status: 404, reason: 'Not found' };
    segments.push(segment);
  }
  const relative = segments.join('/');
  return { ok: true, relative: relative === '' ? 'index.html' : relative };
}

function decodeSegment(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/** Serves the built renderer; anything outside its folder is a 404, never a file read. */
export function serveStatic(root: string, request: IncomingMessage, response: ServerResponse, headers: Record<string, string>): void {
  const plain = (status: number, text: string, extra: Record<string, string> = {}): void => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...extra, ...headers }).end(text);
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    plain(405, 'Method not allowed', { Allow: 'GET, HEAD' });
    return;
  }
  const path = readRequestPath(request.url);
  if (!path.ok) {
    plain(path.status, path.reason);
    return;
  }
  const file = insideRoot(root, path.relative);
  if (file === null) {
    plain(404, 'Not found');
    return;
  }
  response.writeHead(200, {
    'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': path.relative === 'index.html' ? 'no-store' : 'max-age=3600',
    ...headers,
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  // A file removed between the check and the read ends this response, not the server.
  createReadStream(file)
    .on('error', () => response.destroy())
    .pipe(response);
}

/** The real path of a regular file inside root (links followed), or null. */
function insideRoot(root: string, relative: string): string | null {
  try {
    const realRoot = realpathSync(root);
    const file = realpathSync(resolve(join(root, relative)));
    return file.startsWith(realRoot + sep) && statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}
