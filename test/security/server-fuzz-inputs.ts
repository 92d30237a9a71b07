/**
 * Seeded generators for the server fuzz (server-fuzz.test.ts): request targets with bad escapes
 * and traversal, methods and headers, raw garbage, and WebSocket frames. Everything is derived
 * from one seed, so a failing run is replayed exactly with DWB_FUZZ_SEED.
 */

/** mulberry32: small, fast and good enough to spread inputs; the same seed gives the same run. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  bytes(length: number): Buffer {
    return Buffer.from(Array.from({ length }, () => this.int(256)));
  }
  token(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~'): string {
    return Array.from({ length }, () => alphabet[this.int(alphabet.length)]).join('');
  }
}

const hex = '0123456789abcdefABCDEF';
const notHex = 'ghzGZ%/.-_ ';

/** Escapes that decodeURIComponent refuses: truncated, non-hex, overlong, surrogates, stray bytes. */
const badEscapes = ['%', '%z', '%zz', '%f', '%ff', '%fe', '%c0%af', '%c1%9c', '%e0%80%af', '%e0%80', '%ed%a0%80', '%ed%bf%bf', '%f8%88%80%80%80', '%80', '%%30', '%u002e'];
/** Spellings of "go up a level" or "another separator". */
const traversal = ['..', '.', '%2e%2e', '%2E%2e', '.%2e', '%2e.', '..%2f', '%2f', '%5c', '..%5c', '..%c0%af', '..%252f', '%2e%2e%2f%2e%2e%2f'];
/** Names an attacker would want from outside the renderer folder. */
const outsideNames = ['package.json', 'README.md', 'etc', 'passwd', 'workspace.sqlite', '.git', 'config'];

export interface PathContext {
  /** Real files of the renderer, relative to its root. */
  files: readonly string[];
}

function segment(rng: Rng, context: PathContext): string {
  switch (rng.int(9)) {
    case 0:
      return rng.pick(context.files);
    case 1:
      return rng.pick(badEscapes);
    case 2:
      return rng.pick(traversal);
    case 3:
      return rng.pick(outsideNames);
    case 4: {
      // A name with one escape of two random characters, often not hex at all.
      const alphabet = rng.chance(0.5) ? hex : hex + notHex.replace(' ', '');
      return `${rng.token(rng.int(5))}%${rng.token(rng.int(3), alphabet)}${rng.token(rng.int(5))}`;
    }
    case 5:
      // Random bytes, percent-encoded: mostly not valid UTF-8.
      return [...rng.bytes(1 + rng.int(6))].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
    case 6:
      return rng.pick(['%00', 'index.html%00.js', '%00%2f..', 'a%0d%0aSet-Cookie:x=1']);
    case 7:
      return rng.chance(0.1) ? rng.token(2000 + rng.int(6000)) : rng.token(1 + rng.int(20));
    default:
      return rng.pick(['', 'assets', 'api', 'index.html', '~', '%7e', '%20', 'a b'.replace(' ', '%20')]);
  }
}

/** A request target: origin-form mostly, sometimes absolute-form, asterisk or plain garbage. */
export function requestTarget(rng: Rng, context: PathContext): string {
  const roll = rng.int(20);
  if (roll === 0) return rng.pick(['*', 'http://[', 'http://127.0.0.1/%ff', 'http://127.0.0.1:1/..%2fpackage.json', '//evil.example/%zz', 'index.html', '%']);
  const segments = Array.from({ length: 1 + rng.int(5) }, () => segment(rng, context));
  let target = `/${segments.join(rng.chance(0.1) ? '//' : '/')}`;
  if (rng.chance(0.2)) target += `?${rng.pick(['token=x', 'x=%zz', 'a=%ff&b', '%', 'token=' + rng.token(32)])}`;
  if (rng.chance(0.05)) target = `http://127.0.0.1${target}`;
  return target;
}

const methods = ['GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'M-SEARCH', 'get'];

/** One whole raw HTTP request (or, now and then, bytes that are not one). */
export function rawHttpRequest(rng: Rng, context: PathContext): { bytes: Buffer; garbage: boolean } {
  if (rng.chance(0.05)) {
    // Not HTTP at all: random bytes, a WebSocket frame header, a request line cut short.
    const bytes = rng.pick([
      () => rng.bytes(1 + rng.int(300)),
      () => Buffer.concat([Buffer.from([0x81, 0xfe, 0xff, 0xff]), rng.bytes(64)]),
      () => Buffer.from(`GET ${requestTarget(rng, context)}`),
      () => Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999\r\n\r\nshort`),
      () => Buffer.from(`GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: x\r\n\r\nzz\r\n`),
    ])();
    return { bytes, garbage: true };
  }
  if (rng.chance(0.05)) {
    // Several GETs pipelined on one kept-alive connection; the last one closes it.
    const count = 2 + rng.int(4);
    const requests = Array.from(
      { length: count },
      (_, index) => `GET ${requestTarget(rng, context)} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: ${index === count - 1 ? 'close' : 'keep-alive'}\r\n\r\n`,
    );
    return { bytes: Buffer.from(requests.join(''), 'latin1'), garbage: false };
  }
  const method = rng.chance(0.05) ? rng.token(1 + rng.int(10), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') : rng.pick(methods);
  const version = rng.chance(0.95) ? 'HTTP/1.1' : rng.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9']);
  const headers: string[] = [];
  if (rng.chance(0.95)) headers.push(`Host: ${rng.pick(['127.0.0.1', 'localhost', 'evil.example', rng.token(300)])}`);
  let body: Buffer = Buffer.alloc(0);
  for (let count = rng.int(4); count > 0; count--) {
    switch (rng.int(10)) {
      case 0:
        headers.push(`Origin: ${rng.pick(['http://evil.example', 'null', 'http://127.0.0.1:1'])}`);
        break;
      case 1:
        headers.push(rng.pick(['Range: bytes=0-10', 'Range: bytes=garbage', 'Range: bytes=99999999-', 'If-None-Match: *', 'If-Modified-Since: yesterday']));
        break;
      case 2:
        headers.push(rng.pick(['Accept-Encoding: gzip, br', 'Accept: */*', 'Cookie: a=b; c', 'Expect: 100-continue', 'Authorization: Bearer x']));
        break;
      case 3:
        headers.push(`X-${rng.token(1 + rng.int(20), 'abcdefghijklmnopqrstuvwxyz-')}: ${rng.token(rng.int(200))}`);
        break;
      case 4:
        // Over Node's 16 KiB header limit.
        if (rng.chance(0.2)) headers.push(`X-Big: ${'a'.repeat(20_000)}`);
        break;
      case 5: {
        body = rng.bytes(rng.int(2000));
        headers.push(`Content-Type: application/json`, `Content-Length: ${body.length}`);
        break;
      }
      case 6:
        body = Buffer.from('5\r\nhello\r\n0\r\n\r\n');
        headers.push('Transfer-Encoding: chunked');
        break;
      case 7:
        headers.push(rng.pick(['Content-Length: -1', 'Content-Length: 1, 2', 'Transfer-Encoding: gzip, chunked', 'Content-Length: 0\r\nContent-Length: 5']));
        break;
      case 8:
        headers.push('Connection: Upgrade', 'Upgrade: websocket', `Sec-WebSocket-Key: ${rng.bytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13');
        break;
      default:
        headers.push(`${rng.token(1 + rng.int(8))}:${rng.token(rng.int(40))}`);
    }
  }
  if (!headers.includes('Connection: Upgrade')) headers.push('Connection: close');
  const head = `${method} ${requestTarget(rng, context)} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`;
  return { bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]), garbage: false };
}

/** Methods the fuzz may name with random parameters: none reaches the network or runs a model. */
export const fuzzedMethods = [
  'workspace/info',
  'notebooks/list',
  'notebooks/get',
  'notebooks/create',
  'notebooks/rename',
  'notebooks/duplicate',
  'notebooks/delete',
  'notebooks/restore',
  'cells/insert',
  'cells/update',
  'cells/move',
  'cells/change-kind',
  'cells/delete',
  'cells/restore',
  'query/cancel',
  'model/get',
  'runs/list',
  'runs/active',
  'runs/stop',
  'runs/review',
  'runs/set-mode',
  'simulations/detect',
  'whatif/support',
  'whatif/cancel',
] as const;

const keys = ['id', 'method', 'params', 'title', 'notebookId', 'runId', 'afterCellId', 'kind', 'source', 'mode', '__proto__', 'constructor', 'toString', ''];

/** A random JSON value, as a text, with the numbers and strings parsers trip on. */
export function randomJson(rng: Rng, depth = 0): string {
  const roll = depth > 4 ? rng.int(4) : rng.int(7);
  switch (roll) {
    case 0:
      return rng.pick(['null', 'true', 'false', '0', '-0', '1e400', '-1e400', '1.5', '9007199254740993', '-1', '1e-400', '123456789012345678901234567890']);
    case 1:
      return JSON.stringify(rng.token(rng.int(30)));
    case 2:
      return rng.pick(['"\\ud800"', '"\\udfff\\ud800"', '"\\u0000"', '"<script>alert(1)</script>"', '"../../etc/passwd"', '"%ff"', JSON.stringify('é😀\u2028')]);
    case 3:
      return JSON.stringify(rng.int(1000));
    case 4:
      return `[${Array.from({ length: rng.int(4) }, () => randomJson(rng, depth + 1)).join(',')}]`;
    default:
      return `{${Array.from({ length: rng.int(5) }, () => `${JSON.stringify(rng.chance(0.7) ? rng.pick(keys) : rng.token(5))}:${randomJson(rng, depth + 1)}`).join(',')}}`;
  }
}

/** Parameters of the right shape for some request, with values that name nothing real. */
function plausibleParams(rng: Rng): string {
  const value = (): string => rng.pick([JSON.stringify(rng.token(1 + rng.int(12))), JSON.stringify('x'.repeat(300)), '""', 'null', '1']);
  return rng.pick([
    () => '{}',
    () => `{"id":${value()}}`,
    () => `{"title":${value()}}`,
    () => `{"id":${value()},"title":${value()}}`,
    () => `{"notebookId":${value()}}`,
    () => `{"runId":${value()},"mode":${rng.pick(['"auto"', '"step"', '"fast"'])}}`,
    () => `{"requestId":${value()}}`,
    () => `{"connectionId":${value()}}`,
    () => `{"id":${value()},"afterCellId":${value()}}`,
  ])();
}

/** What a text frame holds: a request of the right shape with random parts, or anything else. */
export function requestText(rng: Rng): string {
  const roll = rng.int(12);
  const id = (): string =>
    rng.chance(0.8) ? String(1_000_000 + rng.int(1_000_000)) : rng.pick(['-1', '1.5', '1e400', '"7"', 'null', '9007199254740993', '[]', '{}', '1e21']);
  const method = (): string =>
    rng.chance(0.7)
      ? JSON.stringify(rng.pick(fuzzedMethods))
      : rng.pick([JSON.stringify(rng.token(1 + rng.int(30))), '"__proto__"', '"constructor"', '42', 'null', JSON.stringify('x'.repeat(5000)), '"workspace/info\\u0000"']);
  switch (roll) {
    case 0:
      return randomJson(rng);
    case 1:
      // Almost JSON.
      return rng.pick(['{', '{"id":1,', '{"id":1,"method":"workspace/info",}', "{'id':1}", '', ' ', '\u0000', 'NaN', '{"id":1}{"id":2}', 'undefined']);
    case 2:
      // Deep nesting.
      return `${'['.repeat(1000 + rng.int(20_000))}${rng.chance(0.5) ? ']'.repeat(10) : ''}`;
    case 3:
      return `{"id":${id()},"method":${method()},"params":${'{"a":'.repeat(500)}1${'}'.repeat(500)}}`;
    case 4:
      // A large but allowed message: half a megabyte of parameters.
      return `{"id":${id()},"method":${method()},"params":{"title":${JSON.stringify('t'.repeat(500_000))}}}`;
    default:
      return `{"id":${id()},"method":${method()}${rng.chance(0.8) ? `,"params":${rng.chance(0.5) ? plausibleParams(rng) : randomJson(rng)}` : ''}}`;
  }
}

/** One WebSocket frame as bytes on the wire, masked as a client must unless told otherwise. */
export function wireFrame(options: { opcode: number; payload: Buffer; fin?: boolean; rsv?: number; masked?: boolean; lengthOverride?: bigint }): Buffer {
  const { opcode, payload, fin = true, rsv = 0, masked = true } = options;
  const first = (fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f);
  const length = options.lengthOverride ?? BigInt(payload.length);
  let header: Buffer;
  if (length < 126n) header = Buffer.from([first, (masked ? 0x80 : 0) | Number(length)]);
  else if (length < 65536n) {
    header = Buffer.alloc(4);
    header.writeUInt8(first, 0);
    header.writeUInt8((masked ? 0x80 : 0) | 126, 1);
    header.writeUInt16BE(Number(length), 2);
  } else {
    header = Buffer.alloc(10);
    header.writeUInt8(first, 0);
    header.writeUInt8((masked ? 0x80 : 0) | 127, 1);
    header.writeBigUInt64BE(length, 2);
  }
  if (!masked) return Buffer.concat([header, payload]);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const body = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] as number)));
  return Buffer.concat([header, mask, body]);
}

/** Frames that break the protocol in one way each; the server must close, never crash. */
export function brokenFrames(rng: Rng): { name: string; bytes: Buffer } {
  const text = Buffer.from(requestText(rng).slice(0, 200));
  const choices: (() => { name: string; bytes: Buffer })[] = [
    () => ({ name: 'unmasked', bytes: wireFrame({ opcode: 1, payload: text, masked: false }) }),
    () => ({ name: 'reserved opcode', bytes: wireFrame({ opcode: rng.pick([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]), payload: text }) }),
    () => ({ name: 'rsv bits', bytes: wireFrame({ opcode: 1, payload: text, rsv: 1 + rng.int(7) }) }),
    () => ({ name: 'long ping', bytes: wireFrame({ opcode: 9, payload: rng.bytes(126 + rng.int(200)) }) }),
    () => ({ name: 'fragmented ping', bytes: wireFrame({ opcode: 9, payload: rng.bytes(4), fin: false }) }),
    () => ({ name: 'orphan continuation', bytes: wireFrame({ opcode: 0, payload: text }) }),
    () => ({ name: 'bad close code', bytes: wireFrame({ opcode: 8, payload: Buffer.from([...uint16(rng.pick([0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535])), ...rng.bytes(rng.int(10))]) }) }),
    () => ({ name: 'one-byte close', bytes: wireFrame({ opcode: 8, payload: rng.bytes(1) }) }),
    () => ({ name: 'huge length', bytes: wireFrame({ opcode: 1, payload: rng.bytes(8), lengthOverride: rng.pick([2n ** 53n, 2n ** 63n + 5n, 2n ** 64n - 1n, 8n * 1024n * 1024n + 1n]) }) }),
    () => ({ name: 'invalid UTF-8 text', bytes: wireFrame({ opcode: 1, payload: Buffer.concat([Buffer.from('{"id":1,"method":"'), Buffer.from(rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe0, 0x80]])), Buffer.from('"}')]) }) }),
    () => ({ name: 'text then binary continuation', bytes: Buffer.concat([wireFrame({ opcode: 1, payload: text, fin: false }), wireFrame({ opcode: 2, payload: text })]) }),
    () => ({ name: 'random bytes', bytes: rng.bytes(1 + rng.int(100)) }),
  ];
  return rng.pick(choices)();
}

function uint16(value: number): number[] {
  return [(value >> 8) & 0xff, value & 0xff];
}
