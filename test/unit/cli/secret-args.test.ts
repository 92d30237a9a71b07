import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConnectionUriWithPassword } from '../../../src-main/connectors/connection-uri';
import { resolveApiKey, resolveDatabasePassword, uriTemplateWithPassword, uriWithPassword } from '../../../src-main/cli/secret-args';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

function secretFile(text: string): string {
  const path = join(tempDir(), 'secret');
  writeFileSync(path, text);
  chmodSync(path, 0o600);
  return path;
}

describe('the API key never has to be in argv', () => {
  it('reads --api-key-file (one line break tolerated), else DWB_API_KEY', () => {
    expect(resolveApiKey({ 'api-key-file': secretFile('sk-from-file\n') }, {})).toBe('sk-from-file');
    expect(resolveApiKey({ 'api-key-file': secretFile('sk-crlf\r\n') }, { DWB_API_KEY: 'ignored' })).toBe('sk-crlf');
    expect(resolveApiKey({}, { DWB_API_KEY: 'sk-from-env' })).toBe('sk-from-env');
    expect(resolveApiKey({}, { DWB_API_KEY: '' })).toBeUndefined();
    expect(resolveApiKey({}, {})).toBeUndefined();
  });

  it('refuses --api-key, saying where the key goes instead and never quoting it', () => {
    let message = '';
    try {
      resolveApiKey({ 'api-key': 'sk-inline' }, { DWB_API_KEY: 'sk-env' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe('--api-key would put the key on the command line, where other users of this machine can read it (ps, shell history): use --api-key-file F or the environment variable DWB_API_KEY');
    expect(() => resolveApiKey({ 'api-key': 'a', 'api-key-file': secretFile('b') }, {})).toThrow(/--api-key would put the key on the command line/);
  });

  it('refuses a missing, empty or multi-line file, naming the file but never its content', () => {
    const missing = join(tempDir(), 'nope');
    expect(() => resolveApiKey({ 'api-key-file': missing }, {})).toThrow(`Cannot read --api-key-file ${missing}: no such file (ENOENT)`);
    expect(() => resolveApiKey({ 'api-key-file': secretFile('\n') }, {})).toThrow(/is empty/);
    let message = '';
    try {
      resolveApiKey({ 'api-key-file': secretFile('sk-line-one\nsk-line-two\n') }, {});
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/more than one line/);
    expect(message).not.toContain('sk-line');
  });
});

describe('database passwords never have to be in argv', () => {
  it('takes the password from --password-file, else DWB_DB_PASSWORD', () => {
    const file = secretFile('p@ss:w/rd %41\n');
    expect(resolveDatabasePassword('postgres://wb@127.0.0.1:5432/db', file, {})).toEqual({ target: { engine: 'postgres', url: 'postgres://wb@127.0.0.1:5432/db' }, password: 'p@ss:w/rd %41' });
    expect(resolveDatabasePassword('mysql://wb@127.0.0.1/db', file, { DWB_DB_PASSWORD: 'env' }).password).toBe('p@ss:w/rd %41');
    expect(resolveDatabasePassword('mysql://wb@127.0.0.1/db', undefined, { DWB_DB_PASSWORD: 'env' }).password).toBe('env');
    expect(resolveDatabasePassword('neo4j://neo4j@127.0.0.1:7687', undefined, { DWB_DB_PASSWORD: 'env' })).toMatchObject({ target: { username: 'neo4j' }, password: 'env' });
    expect(resolveDatabasePassword('postgres://wb@127.0.0.1/db', undefined, {}).password).toBeNull();
  });

  it('refuses a password written into the URI, naming the flag and where it goes, never quoting it', () => {
    const refusal = (run: () => unknown): string => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      return 'not refused';
    };
    for (const uri of ['postgres://wb:in-uri-secret@127.0.0.1/db', 'mysql://wb:in-uri-secret@h/db', 'neo4j://neo4j:in-uri-secret@h:7687', 'postgresql://:in-uri-secret@h/db']) {
      for (const passwordFile of [undefined, secretFile('other')]) {
        const message = refusal(() => resolveDatabasePassword(uri, passwordFile, { DWB_DB_PASSWORD: 'env' }));
        expect(message, uri).toBe(
          '--connection holds a password (user:password@host), which puts it on the command line, where other users of this machine can read it (ps, shell history): ' +
            'give the URI without it and the password in --password-file F or the environment variable DWB_DB_PASSWORD',
        );
      }
    }
    const template = refusal(() => uriTemplateWithPassword('postgres://wb:in-uri-secret@h/{dump}', undefined, {}));
    expect(template).toMatch(/^--target holds a password \(user:password@host\)/);
    expect(template).not.toContain('in-uri-secret');
    // A user name alone is no secret.
    expect(resolveDatabasePassword('postgres://wb@h/db', undefined, {}).password).toBeNull();
  });

  it('gives files no password', () => {
    expect(resolveDatabasePassword('sqlite:/tmp/x.db', undefined, { DWB_DB_PASSWORD: 'env' }).password).toBeNull();
    expect(() => resolveDatabasePassword('sqlite:/tmp/x.db', secretFile('pw'), {})).toThrow(/--password-file goes with a server connection/);
  });

  it('writes a password into a URI or a {dump} template so that the parser reads it back unchanged', () => {
    const password = 'p@ss:w/rd {dump} %41 é';
    for (const uri of ['postgres://wb@127.0.0.1:5432/db', 'postgres://127.0.0.1/db', 'mysql://wb:old@h/db', 'bolt://neo4j@h:7687']) {
      expect(parseConnectionUriWithPassword(uriWithPassword(uri, password)).password, uri).toBe(password);
    }
    const template = uriTemplateWithPassword('postgres://wb@127.0.0.1/{dump}', undefined, { DWB_DB_PASSWORD: password });
    expect(template.endsWith('/{dump}')).toBe(true);
    expect(parseConnectionUriWithPassword(template.replace('{dump}', 'USA1836'))).toEqual({ target: { engine: 'postgres', url: 'postgres://wb@127.0.0.1/USA1836' }, password });
    // Nothing to add: the text is handed on untouched, whatever it is.
    expect(uriTemplateWithPassword('not a uri', undefined, {})).toBe('not a uri');
  });
});
