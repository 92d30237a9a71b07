/**
 * Binary values as a cell: `0x` and every byte in hex, which a grid shows, a copy or export
 * keeps whole and a SQL literal reads back (`X'…'` in SQLite, `0x…` in MySQL). Past the limit
 * a value is described by its size instead, so that one column of large blobs cannot fill the
 * notebook's stored preview; `length()` or `substr()` in the query reads such a value.
 */
export const binaryHexLimitBytes = 64 * 1024;

export function binaryCell(bytes: Uint8Array): string {
  if (bytes.length > binaryHexLimitBytes) {
    return `(binary, ${bytes.length.toLocaleString('en-US')} bytes: more than ${binaryHexLimitBytes / 1024} KB is not shown; select length() or substr() of it)`;
  }
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}`;
}
