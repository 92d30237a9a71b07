/**
 * WorkbenchError.revive checks received errors by hand (errors.ts stays free of zod, which every
 * CLI command loads); it must accept exactly what workbenchErrorSchema accepts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WorkbenchError, errorCodes, fileErrorReason } from '../../../src-main/contract/errors';
import { workbenchErrorSchema } from '../../../src-main/contract/error-schema';

const valid = { name: 'WorkbenchError', code: 'timeout', message: 'too slow', retryable: true };
const variants: unknown[] = [
  valid,
  { ...valid, extra: 1 },
  ...errorCodes.map((code) => ({ ...valid, code, retryable: false })),
  { ...valid, name: 'Error' },
  { ...valid, code: 'nope' },
  { ...valid, code: 3 },
  { ...valid, message: 7 },
  { ...valid, retryable: 'yes' },
  { name: 'WorkbenchError', code: 'timeout', message: 'x' },
  null,
  'WorkbenchError',
  [],
  42,
];

describe('WorkbenchError.revive', () => {
  it.each(variants.map((value) => [JSON.stringify(value), value]))('agrees with workbenchErrorSchema on %s', (_label, value) => {
    const revived = WorkbenchError.revive(value);
    const parsed = workbenchErrorSchema.safeParse(value);
    if (parsed.success) {
      expect(revived.toJSON()).toEqual(parsed.data);
    } else {
      expect(revived.code).toBe('internal');
      expect(revived.message).toBe('Malformed error from the workbench service');
    }
  });
});

describe('fileErrorReason', () => {
  it('words the usual file errors with their code, and keeps any other error’s own text', () => {
    const failure = (path: string): unknown => {
      try {
        readFileSync(path);
      } catch (error) {
        return error;
      }
      throw new Error(`${path} was readable`);
    };
    expect(fileErrorReason(failure('/no/such/file'))).toBe('no such file (ENOENT)');
    expect(fileErrorReason(failure(tmpdir()))).toBe('it is a folder, not a file (EISDIR)');
    expect(fileErrorReason(Object.assign(new Error('EBUSY: resource busy'), { code: 'EBUSY' }))).toBe('EBUSY: resource busy');
    expect(fileErrorReason('plain text')).toBe('plain text');
  });
});
